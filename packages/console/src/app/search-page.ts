/** Search with the mode switch (full text, semantic, hybrid) and each hit's per-leg rank and score. */
import { api } from "./api.js";
import { h, replace } from "./dom.js";
import { hitView, type Hit } from "./search-hits.js";
import { entryLink, loading, problemBox } from "./views.js";

type Mode = "fts" | "semantic" | "hybrid";
const modes: { value: Mode; label: string }[] = [
  { value: "fts", label: "Full text" },
  { value: "semantic", label: "Semantic" },
  { value: "hybrid", label: "Hybrid" },
];

interface SearchReply {
  results: Hit[];
  has_more: boolean;
  explain?: { ranked_by: string; fusion_method: string | null };
}

const pageSize = 20;

/** The search page; `params` holds the query and mode from the hash, so a search can be linked and gone back to. */
export function searchPage(view: HTMLElement, params: URLSearchParams): void {
  const query = params.get("q") ?? "";
  const requested = params.get("mode");
  const mode: Mode = requested === "fts" || requested === "semantic" ? requested : "hybrid";
  const input = h("input", { type: "search", id: "search-query", name: "q", required: true, autocomplete: "off" });
  input.value = query;
  const modeSwitch = h(
    "fieldset",
    {},
    h("legend", {}, "Mode"),
    modes.map(({ value, label }) => {
      const radio = h("input", { type: "radio", name: "mode", value, id: `mode-${value}`, checked: value === mode });
      return h("label", { for: radio.id }, radio, ` ${label}`);
    }),
  );
  const form = h(
    "form",
    { class: "stack", role: "search" },
    h("div", {}, h("label", { for: input.id }, "Query"), input),
    modeSwitch,
    h("button", { type: "submit", class: "primary" }, "Search"),
  );
  const results = h("section", { "aria-live": "polite", "aria-label": "Results" });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const chosen = (form.querySelector("input[name=mode]:checked") as HTMLInputElement | null)?.value ?? "hybrid";
    location.hash = `#/search?${new URLSearchParams({ q: input.value, mode: chosen }).toString()}`;
  });
  replace(view, h("h1", {}, "Search"), form, results);
  if (query === "") return;
  replace(results, loading());
  const offset = Math.max(0, Number.parseInt(params.get("offset") ?? "0", 10) || 0);
  api<SearchReply>("POST", `/search/${mode}`, { body: { query, limit: pageSize, offset, explain_query: true } }).then(
    ({ body }) => {
      const label = modes.find((item) => item.value === mode)?.label ?? mode;
      const page = (from: number) =>
        `#/search?${new URLSearchParams({ q: query, mode, offset: String(from) }).toString()}`;
      replace(
        results,
        h(
          "p",
          { class: "muted", id: "result-count" },
          `${body.results.length} result(s)${offset > 0 ? ` from #${offset + 1}` : ""}, ${label.toLowerCase()}`,
        ),
        h(
          "ol",
          { class: "hits", start: offset + 1 },
          body.results.map((hit) => hitView(hit, entryLink(hit))),
        ),
        h(
          "p",
          {},
          offset > 0 ? h("a", { href: page(Math.max(0, offset - pageSize)) }, "Previous page") : null,
          offset > 0 && body.has_more ? " · " : null,
          body.has_more ? h("a", { href: page(offset + pageSize) }, "Next page") : null,
        ),
      );
    },
    (error: unknown) => replace(results, problemBox(error)),
  );
}
