/** An entry's trust state as a badge (its own module so that the MCP App view can share it without the API client). */
import { h } from "./dom.js";

export function trustBadge(state: string | undefined): HTMLElement {
  return h("span", { class: `trust trust-${state ?? "unknown"}` }, state ?? "unknown");
}
