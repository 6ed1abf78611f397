/** Threads, and the entries of one thread. */
import { api } from "./api.js";
import { h, replace, when } from "./dom.js";
import { entryLink, loading, problemBox, trustBadge } from "./views.js";

interface Thread {
  thread_id: string;
  entry_count: number;
  user_entries: number;
  agent_entries: number;
  last_at: string | null;
}

interface Listing {
  id: string;
  title: string | null;
  kind: string;
  trust_state: string;
  preview: string;
  updated_at: string | null;
}

const threadHref = (id: string) => `#/thread/${encodeURIComponent(id)}`;

/** A link to the next page of a listing, when the API answered a cursor for one. */
function nextPage(route: string, cursor: string | null | undefined): HTMLElement | null {
  if (cursor === null || cursor === undefined) return null;
  return h("p", {}, h("a", { href: `${route}?${new URLSearchParams({ cursor }).toString()}` }, "Next page"));
}

export function threadsPage(view: HTMLElement, cursor?: string): void {
  replace(view, h("h1", {}, "Threads"), loading());
  api<{ threads: Thread[]; total: number; next_cursor: string | null }>("GET", "/threads", {
    query: { limit: 100, cursor },
  }).then(
    ({ body }) =>
      replace(
        view,
        h("h1", {}, "Threads"),
        h(
          "table",
          {},
          h("caption", { class: "muted" }, `${body.total} thread(s)`),
          h(
            "thead",
            {},
            h(
              "tr",
              {},
              ["Thread", "Entries", "From people", "From agents", "Last write"].map((name) =>
                h("th", { scope: "col" }, name),
              ),
            ),
          ),
          h(
            "tbody",
            {},
            body.threads.map((thread) =>
              h(
                "tr",
                {},
                h("td", {}, h("a", { href: threadHref(thread.thread_id) }, thread.thread_id)),
                h("td", {}, String(thread.entry_count)),
                h("td", {}, String(thread.user_entries)),
                h("td", {}, String(thread.agent_entries)),
                h("td", {}, when(thread.last_at)),
              ),
            ),
          ),
        ),
        nextPage("#/threads", body.next_cursor),
      ),
    (error: unknown) => replace(view, h("h1", {}, "Threads"), problemBox(error)),
  );
}

export function threadPage(view: HTMLElement, threadId: string, cursor?: string): void {
  replace(view, h("h1", {}, `Thread ${threadId}`), loading());
  api<{ results: Listing[]; next_cursor: string | null }>("GET", "/entries", {
    query: { thread_id: threadId, limit: 100, include_quarantined: true, cursor },
  }).then(
    ({ body }) =>
      replace(
        view,
        h("h1", {}, `Thread ${threadId}`),
        body.results.length === 0
          ? h("p", {}, "No entries you can see.")
          : h(
              "ul",
              { class: "plain" },
              body.results.map((entry) =>
                h(
                  "li",
                  { class: "hit" },
                  h("h2", {}, entryLink(entry)),
                  h(
                    "p",
                    { class: "muted" },
                    `${entry.kind} · ${when(entry.updated_at)} · `,
                    trustBadge(entry.trust_state),
                  ),
                  h("p", {}, entry.preview),
                ),
              ),
            ),
        nextPage(threadHref(threadId), body.next_cursor),
      ),
    (error: unknown) => replace(view, h("h1", {}, `Thread ${threadId}`), problemBox(error)),
  );
}
