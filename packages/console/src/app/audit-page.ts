/** The audit log, newest first, and whether the records shown link into one chain. */
import { api } from "./api.js";
import { h, replace, when } from "./dom.js";
import { loading, problemBox } from "./views.js";

interface AuditRecord {
  seq: number;
  at: string | null;
  actor: string;
  action: string;
  outcome: string;
  target_ids: string[];
  previous_hash: string;
  hash: string;
}

/**
 * Whether each record names the hash of the record before it (the page is newest first). The API does not
 * recompute the hashes; this checks only that the records shown link up, and says so.
 */
export function chainStatus(records: readonly AuditRecord[]): HTMLElement {
  for (let index = 0; index + 1 < records.length; index += 1) {
    const newer = records[index];
    const older = records[index + 1];
    if (newer !== undefined && older !== undefined && newer.seq === older.seq + 1 && newer.previous_hash !== older.hash)
      return h(
        "p",
        { class: "problem", id: "chain-status", role: "alert" },
        `Chain broken: record ${newer.seq} does not name the hash of record ${older.seq}.`,
      );
  }
  return h(
    "p",
    { class: "notice", id: "chain-status" },
    `Chain links: each of the ${records.length} record(s) shown names the hash of the record before it. (The API does not re-verify the hashes themselves.)`,
  );
}

export function auditPage(view: HTMLElement, cursor?: string): void {
  replace(view, h("h1", {}, "Audit log"), loading());
  api<{ records: AuditRecord[]; next_cursor: string | null }>("GET", "/audit-log", {
    query: { limit: 50, cursor },
  }).then(
    ({ body }) =>
      replace(
        view,
        h("h1", {}, "Audit log"),
        chainStatus(body.records),
        h(
          "table",
          {},
          h(
            "thead",
            {},
            h(
              "tr",
              {},
              ["Seq", "At", "Actor", "Action", "Outcome", "Targets"].map((name) => h("th", { scope: "col" }, name)),
            ),
          ),
          h(
            "tbody",
            {},
            body.records.map((record) =>
              h(
                "tr",
                {},
                h("td", {}, String(record.seq)),
                h("td", {}, when(record.at)),
                h("td", {}, record.actor),
                h("td", {}, record.action),
                h("td", {}, record.outcome),
                h("td", {}, record.target_ids.join(", ")),
              ),
            ),
          ),
        ),
        body.next_cursor === null
          ? null
          : h(
              "p",
              {},
              h(
                "a",
                { href: `#/audit?${new URLSearchParams({ cursor: body.next_cursor }).toString()}` },
                "Older records",
              ),
            ),
      ),
    (error: unknown) => replace(view, h("h1", {}, "Audit log"), problemBox(error)),
  );
}
