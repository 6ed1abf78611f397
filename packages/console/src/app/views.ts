/** Pieces several pages share: problem boxes, trust badges, tag lists, entry links. */
import { ProblemError } from "./api.js";
import { h } from "./dom.js";

/** A problem detail as a readable box: its title, detail and remedy, announced to screen readers. */
export function problemBox(error: unknown): HTMLElement {
  const problem =
    error instanceof ProblemError
      ? error
      : new ProblemError(0, "Something went wrong", String(error), undefined, undefined);
  return h(
    "div",
    { class: "problem", role: "alert" },
    h("p", {}, h("strong", {}, problem.title), problem.status > 0 ? ` (HTTP ${problem.status})` : ""),
    problem.detail === "" ? null : h("p", { class: "problem-detail" }, problem.detail),
    problem.remedy === undefined ? null : h("p", { class: "problem-remedy" }, "What to do: ", problem.remedy),
  );
}

/** A notice that something worked. */
export function notice(text: string): HTMLElement {
  return h("div", { class: "notice", role: "status" }, text);
}

export { trustBadge } from "./trust-badge.js";

export function tagList(tags: readonly string[]): HTMLElement {
  return tags.length === 0
    ? h("span", { class: "muted" }, "none")
    : h(
        "ul",
        { class: "tags" },
        tags.map((tag) => h("li", {}, tag)),
      );
}

/** The hash route of an entry's page. */
export const entryHref = (id: string) => `#/entry/${encodeURIComponent(id)}`;

/** An entry's name as a link: its title, or its id when it has none. */
export function entryLink(entry: { id: string; title?: string | null }): HTMLAnchorElement {
  const title = entry.title ?? "";
  return h("a", { href: entryHref(entry.id) }, title === "" ? entry.id : title);
}

/** A loading line, replaced when the page's data arrives. */
export const loading = () => h("p", { class: "muted", "aria-busy": "true" }, "Loading…");
