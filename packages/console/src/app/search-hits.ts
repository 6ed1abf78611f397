/**
 * One search hit as text: its title (a node the caller makes: a link in the
 * console, plain text in the MCP App view), rank, score, kind, thread, trust
 * state, preview and, when explained, each leg's rank and score. Shared by
 * the console's search page and the MCP App view of search results, so it
 * imports only the DOM helpers.
 */
import { h, type Attributes, type Child } from "./dom.js";
import { trustBadge } from "./trust-badge.js";

export interface Leg {
  rank: number;
  score: number;
  contribution?: number | null;
}

export interface Hit {
  id: string;
  title: string | null;
  kind: string;
  thread_id: string;
  trust_state: string;
  preview: string;
  rank: number;
  score: number;
  explain?: { fts: Leg | null; semantic: Leg | null; fused: number | null; rerank: Leg | null };
}

/** A score as shown: whole numbers as they are, others to four places. */
export const score = (value: number) => (Number.isInteger(value) ? String(value) : value.toFixed(4));

function legText(name: string, leg: Leg | null): string | null {
  if (leg === null) return null;
  const share = leg.contribution === undefined || leg.contribution === null ? "" : `, adds ${score(leg.contribution)}`;
  return `${name}: rank ${leg.rank}, score ${score(leg.score)}${share}`;
}

/** One hit as a list item headed by `title`, with `attributes` on the item. */
export function hitView(hit: Hit, title: Child, attributes: Attributes = {}): HTMLLIElement {
  const explain = hit.explain;
  const legs = explain
    ? [
        legText("full text", explain.fts),
        legText("semantic", explain.semantic),
        explain.fused === null ? null : `fused: ${score(explain.fused)}`,
        legText("rerank", explain.rerank),
      ].filter((line): line is string => line !== null)
    : [];
  return h(
    "li",
    { ...attributes, class: "hit" },
    h("h2", {}, title),
    h(
      "p",
      { class: "muted" },
      `#${hit.rank} · score ${score(hit.score)} · ${hit.kind} · thread ${hit.thread_id} · `,
      trustBadge(hit.trust_state),
    ),
    h("p", { class: "preview" }, hit.preview),
    legs.length === 0
      ? null
      : h(
          "ul",
          { class: "explain", "aria-label": "How this hit ranked" },
          legs.map((line) => h("li", {}, line)),
        ),
  );
}
