/** The audit log, newest first, with the server's check of the whole hash chain (first page) or of the page's links. */
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

/** The API's check of the tenant's whole chain (`verify=true`): every record's hash recomputed from the first on. */
interface ChainCheck {
  records: number;
  intact: boolean;
  broken: { seq: number; id: string; problem: string } | null;
  head_hash: string;
}

/**
 * What the page says about the chain. With the server's check (`chain`, asked for on the first page), its verdict
 * over every record; without it (older pages), whether each record shown names the hash of the record before it
 * (the page is newest first), which checks the links only, and says so.
 */
export function chainStatus(records: readonly AuditRecord[], chain?: ChainCheck): HTMLElement {
  if (chain !== undefined) {
    if (chain.broken !== null)
      return h(
        "p",
        { class: "problem", id: "chain-status", role: "alert" },
        `Chain broken at record ${chain.broken.seq} (${chain.broken.id}): ${chain.broken.problem}. The ${chain.records} record(s) before it check out.`,
      );
    return h(
      "p",
      { class: "notice", id: "chain-status" },
      `Chain verified by the server: all ${chain.records} record(s) recomputed and intact; head hash ${chain.head_hash.slice(0, 16)}…`,
    );
  }
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
  // The whole chain is recomputed once, on the first page; older pages check their own links.
  api<{ records: AuditRecord[]; next_cursor: string | null; chain?: ChainCheck }>("GET", "/audit-log", {
    query: { limit: 50, cursor, ...(cursor === undefined ? { verify: true } : {}) },
  }).then(
    ({ body }) =>
      replace(
        view,
        h("h1", {}, "Audit log"),
        chainStatus(body.records, body.chain),
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
