/**
 * The review queue: each waiting entry (a named memory's quarantined value among them, marked as the memory), handoff
 * or session event with approve / reject and a note; the API's refusals are shown as they come.
 */
import { api } from "./api.js";
import { button, field, h, replace, uniqueId, when } from "./dom.js";
import { renderMarkdown } from "./markdown.js";
import { entryLink, loading, notice, problemBox, trustBadge } from "./views.js";

interface Waiting {
  id: string;
  /** The entry's kind, or `handoff`, or `session_event`. */
  kind: string;
  thread_id: string | null;
  owner: string;
  updated_by: string;
  version: number;
  /** Set for a memory's mirror entry: the review judges that memory's current value. */
  memory: { namespace: string; key: string; owner: string; version: number } | null;
  /** Set for a quarantined handoff. */
  handoff: { id: string; title: string; creator: string; state: string } | null;
  /** Set for a quarantined session event. */
  session_event: { session_id: string; sequence: number; event_kind: string; namespace: string } | null;
  trust_state: string;
  trust_reasons: string[];
  text: string;
  updated_at: string | null;
}

/** Where a review of the item is posted. */
function reviewPath(item: Waiting): string {
  if (item.handoff !== null) return `/handoffs/${encodeURIComponent(item.handoff.id)}/review`;
  if (item.session_event !== null)
    return `/sessions/${encodeURIComponent(item.session_event.session_id)}/events/${item.session_event.sequence}/review`;
  return `/entries/${encodeURIComponent(item.id)}/review`;
}

/** What the item is, in the words of its confirmation. */
function itemNoun(item: Waiting): string {
  if (item.handoff !== null) return "handoff";
  if (item.session_event !== null) return "session event";
  return item.memory === null ? "entry" : "memory's value";
}

/** Where the item sits: its thread, memory, handoff or session. */
function itemPlace(item: Waiting): string {
  if (item.handoff !== null) return `handoff ${JSON.stringify(item.handoff.title)} (${item.handoff.state})`;
  if (item.session_event !== null)
    return `event ${item.session_event.sequence} (${item.session_event.event_kind}) of session ${item.session_event.session_id} in ${item.session_event.namespace}`;
  return item.memory === null
    ? `thread ${item.thread_id ?? ""}`
    : `memory ${JSON.stringify(item.memory.namespace)}/${JSON.stringify(item.memory.key)} (version ${item.memory.version})`;
}

function itemView(item: Waiting): HTMLElement {
  const note = h("textarea", { id: uniqueId("note"), rows: 2, maxlength: 2000 });
  const status = h("div", { "aria-live": "polite" });
  const decide = (decision: "approve" | "reject") => {
    replace(status);
    api<{ trust_state: string }>("POST", reviewPath(item), {
      body: { decision, ...(note.value.trim() === "" ? {} : { note: note.value }) },
      headers: { "if-match": `"${item.version}"` },
    }).then(
      ({ body }) => {
        replace(
          status,
          notice(
            `${decision === "approve" ? "Approved" : "Rejected"}: the ${itemNoun(item)} is now ${body.trust_state}.`,
          ),
        );
        for (const control of Array.from(article.querySelectorAll("button, textarea")))
          (control as HTMLButtonElement | HTMLTextAreaElement).disabled = true;
      },
      (error: unknown) => replace(status, problemBox(error)),
    );
  };
  const article = h(
    "li",
    { class: "card review-item" },
    h("h2", {}, item.handoff === null && item.session_event === null ? entryLink(item) : itemNoun(item)),
    h(
      "p",
      { class: "muted" },
      itemPlace(item),
      ` · by ${item.updated_by} (owner ${item.owner}) · version ${item.version} · ${when(item.updated_at)} · `,
      trustBadge(item.trust_state),
    ),
    h(
      "p",
      {},
      "The write screen found: ",
      item.trust_reasons.length === 0 ? "nothing (unverified source)" : item.trust_reasons.join(", "),
    ),
    item.session_event === null ? renderMarkdown(item.text) : h("pre", {}, item.text),
    field("Note for the review", note),
    h(
      "p",
      {},
      button("Approve", () => decide("approve"), { class: "primary" }),
      " ",
      button("Reject", () => decide("reject"), { class: "danger" }),
    ),
    status,
  );
  return article;
}

export function reviewPage(view: HTMLElement): void {
  replace(view, h("h1", {}, "Review queue"), loading());
  api<{ entries: Waiting[]; has_more: boolean }>("GET", "/review-queue", { query: { limit: 50 } }).then(
    ({ body }) =>
      replace(
        view,
        h("h1", {}, "Review queue"),
        body.entries.length === 0
          ? h("p", {}, "Nothing is waiting for review.")
          : h("ol", { class: "plain" }, body.entries.map(itemView)),
      ),
    (error: unknown) => replace(view, h("h1", {}, "Review queue"), problemBox(error)),
  );
}
