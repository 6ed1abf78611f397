/**
 * The review queue in SQL: one page of what waits for a reviewer of the
 * tenant — entries under the access predicate's review mode (a memory's
 * mirror only while its value is quarantined or rejected), and handoffs and
 * session events while quarantined or rejected, whoever they are addressed
 * to — in one order (quarantined first, then newest first, then by key)
 * over the three tables, so an offset pages through them all alike. The page
 * is picked by one statement over the three; its rows are then read in full,
 * the entries and the handoffs with the artifacts they link (one statement
 * each for the page, never one per item, under the rule that picked them: the
 * access predicate's review mode for entries, a waiting handoff of the
 * reviewer's tenant for handoffs), so a row the reviewer may not review shows
 * no links, as one that does not exist.
 */
import { createSqlParams, type SqlDatabase, type SqlExecutor, type SqlParams } from "../db/sql-database.js";
import { entryColumns, toStoredEntry } from "../entries/entry-rows.js";
import { linkedArtifactsOf } from "../entries/listed-artifacts.js";
import { accessPredicate } from "../filters/access-predicate.js";
import type { Principal } from "../model/principal.js";
import type { QueueItem, QueuedHandoff, QueuedSessionEvent, ReviewRepository } from "../model/review-ports.js";
import { reviewOpenStates, type TrustState } from "../model/trust.js";

type EntryRow = Parameters<typeof toStoredEntry>[0];

interface Request {
  states: readonly TrustState[];
  threadId: string | undefined;
}

/**
 * The review rule for the `handoffs` row aliased `h`: a handoff of the reviewer's tenant waits for review while it
 * is quarantined or rejected, whoever it is addressed to.
 */
function handoffWaits(principal: Principal, params: SqlParams): string {
  return `(h.tenant = ${params.add(principal.tenant)} AND h.trust = ANY(${params.add([...reviewOpenStates])}::text[]))`;
}

/** The three selections of the queue's keys, each with the columns the page is ordered by. */
function keySelections(principal: Principal, request: Request, params: SqlParams): string {
  const states = params.add([...request.states]);
  const open = params.add([...reviewOpenStates]);
  const tenant = params.add(principal.tenant);
  const thread = request.threadId === undefined ? undefined : params.add(request.threadId);
  const entries = [
    accessPredicate(principal, "e", params, "review"),
    `e.trust_state = ANY(${states}::text[])`,
    // A memory's mirror waits for a reviewer only while its value is quarantined or rejected, whoever may read it.
    `(e.memory_id IS NULL OR e.trust_state = ANY(${open}::text[]))`,
    ...(thread === undefined ? [] : [`e.thread_id = ${thread}`]),
  ];
  // Handoffs and events wait only while quarantined or rejected; a thread filter keeps those of that namespace.
  const handoffs = [
    handoffWaits(principal, params),
    `h.trust = ANY(${states}::text[])`,
    ...(thread === undefined ? [] : [`h.recipient_kind = 'namespace' AND h.recipient = ${thread}`]),
  ];
  const events = [
    `v.tenant = ${tenant}`,
    `v.trust = ANY(${states}::text[])`,
    `v.trust = ANY(${open}::text[])`,
    ...(thread === undefined
      ? []
      : [`EXISTS (SELECT 1 FROM sessions s WHERE s.id = v.session_id AND s.namespace = ${thread})`]),
  ];
  return `SELECT 'entry' AS item_type, e.id::text AS item_id, 0 AS item_seq, (e.trust_state = 'quarantined') AS first,
            e.created_at AS at, e.id::text AS tie FROM entries e WHERE ${entries.join(" AND ")}
          UNION ALL
          SELECT 'handoff', h.id::text, 0, (h.trust = 'quarantined'), h.created_at, h.id::text
            FROM handoffs h WHERE ${handoffs.join(" AND ")}
          UNION ALL
          SELECT 'session_event', v.session_id::text, v.seq, (v.trust = 'quarantined'), v.written_at,
            v.session_id::text || '/' || lpad(v.seq::text, 10, '0') FROM session_events v WHERE ${events.join(" AND ")}`;
}

interface HandoffRow {
  id: string;
  creator: string;
  recipient_kind: string;
  recipient: string;
  title: string;
  summary: string;
  next_steps: string[];
  open_questions: string[];
  outcome: string;
  cancel_reason: string;
  status: string;
  version: number;
  trust: TrustState;
  trust_reasons: string[];
  created_at: Date;
  updated_at: Date;
  updated_by: string;
  reviewed_by: string | null;
  reviewed_at: Date | null;
  review_note: string | null;
}

/** A handoff's text as a reviewer judges it: every part the screen reads, one after another. */
function handoffText(row: HandoffRow): string {
  const list = (heading: string, items: readonly string[]) =>
    items.length === 0 ? [] : [`${heading}:`, ...items.map((item) => `- ${item}`)];
  return [
    row.title,
    row.summary,
    ...list("Next steps", row.next_steps),
    ...list("Open questions", row.open_questions),
    ...(row.outcome === "" ? [] : [`Outcome: ${row.outcome}`]),
    ...(row.cancel_reason === "" ? [] : [`Cancel reason: ${row.cancel_reason}`]),
  ].join("\n\n");
}

/**
 * The artifacts each handoff among `ids` links (its links of type `artifact` whose ref is a SHA-256, the form the
 * artifact predicate opens; distinct, sorted), read for a page in one statement under the queue's rule for handoffs:
 * one the reviewer may not review (another tenant's, or no longer waiting) is absent, as one that does not exist.
 */
async function handoffArtifactsOf(
  executor: SqlExecutor,
  principal: Principal,
  ids: readonly string[],
): Promise<Map<string, string[]>> {
  if (ids.length === 0) return new Map();
  const params = createSqlParams();
  const { rows } = await executor.query<{ id: string; artifacts: string[] }>(
    `SELECT h.id, ARRAY(SELECT DISTINCT l.value->>'ref' FROM jsonb_array_elements(h.links) l
         WHERE l.value->>'type' = 'artifact' AND l.value->>'ref' ~ '^[0-9a-f]{64}$' ORDER BY 1) AS artifacts
       FROM handoffs h WHERE h.id = ANY(${params.add([...new Set(ids)])}::uuid[]) AND ${handoffWaits(principal, params)}`,
    params.values,
  );
  return new Map(rows.map((row) => [row.id, row.artifacts]));
}

function toQueuedHandoff(row: HandoffRow, artifacts: string[]): QueuedHandoff {
  return {
    id: row.id,
    creator: row.creator,
    recipientKind: row.recipient_kind,
    recipient: row.recipient,
    title: row.title,
    text: handoffText(row),
    status: row.status,
    version: Number(row.version),
    trust: { state: row.trust, reasons: row.trust_reasons },
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    updatedBy: row.updated_by,
    reviewedBy: row.reviewed_by ?? undefined,
    reviewedAt: row.reviewed_at ?? undefined,
    reviewNote: row.review_note ?? undefined,
    artifacts,
  };
}

interface EventRow {
  session_id: string;
  seq: number;
  kind: string;
  payload: string;
  owner: string;
  namespace: string;
  written_by: string;
  written_at: Date;
  trust: TrustState;
  trust_reasons: string[];
  reviewed_by: string | null;
  reviewed_at: Date | null;
  review_note: string | null;
}

function toQueuedEvent(row: EventRow): QueuedSessionEvent {
  return {
    sessionId: row.session_id,
    seq: Number(row.seq),
    eventKind: row.kind,
    payload: row.payload,
    sessionOwner: row.owner,
    namespace: row.namespace,
    writtenBy: row.written_by,
    writtenAt: row.written_at,
    trust: { state: row.trust, reasons: row.trust_reasons },
    reviewedBy: row.reviewed_by ?? undefined,
    reviewedAt: row.reviewed_at ?? undefined,
    reviewNote: row.review_note ?? undefined,
  };
}

/** The review queue over a migrated database. */
export function createReviewRepository(db: SqlDatabase): ReviewRepository {
  return {
    async listQueue(principal, request) {
      const params = createSqlParams();
      const { rows: keys } = await db.query<{ item_type: QueueItem["type"]; item_id: string; item_seq: number }>(
        `SELECT q.item_type, q.item_id, q.item_seq FROM (${keySelections(principal, request, params)}) q
         ORDER BY q.first DESC, q.at DESC, q.tie DESC
         LIMIT ${params.add(request.limit + 1)} OFFSET ${params.add(request.offset)}`,
        params.values,
      );
      const page = keys.slice(0, request.limit);
      const ids = (type: QueueItem["type"]) => page.filter((key) => key.item_type === type).map((key) => key.item_id);
      const [entries, artifacts, handoffs, handoffArtifacts, events] = await Promise.all([
        db.query<EntryRow>(
          `SELECT ${entryColumns}, e.text FROM entries e WHERE e.id = ANY($1::uuid[]) AND e.tenant = $2`,
          [ids("entry"), principal.tenant],
        ),
        linkedArtifactsOf(db, principal, ids("entry"), { asOf: undefined }, "review"),
        db.query<HandoffRow>(
          `SELECT h.id, h.creator, h.recipient_kind, h.recipient, h.title, h.summary, h.next_steps, h.open_questions,
             h.outcome, h.cancel_reason, h.status, h.version, h.trust, h.trust_reasons, h.created_at, h.updated_at,
             h.updated_by, h.reviewed_by, h.reviewed_at, h.review_note
           FROM handoffs h WHERE h.id = ANY($1::uuid[]) AND h.tenant = $2`,
          [ids("handoff"), principal.tenant],
        ),
        handoffArtifactsOf(db, principal, ids("handoff")),
        db.query<EventRow>(
          `SELECT v.session_id, v.seq, v.kind, v.payload, s.owner, s.namespace, v.written_by, v.written_at, v.trust,
             v.trust_reasons, v.reviewed_by, v.reviewed_at, v.review_note
           FROM session_events v JOIN sessions s ON s.id = v.session_id
           WHERE (v.session_id::text || '/' || v.seq::text) = ANY($1::text[]) AND v.tenant = $2`,
          [
            page.filter((key) => key.item_type === "session_event").map((key) => `${key.item_id}/${key.item_seq}`),
            principal.tenant,
          ],
        ),
      ]);
      const byEntry = new Map(entries.rows.map((row) => [row.id, row]));
      const byHandoff = new Map(handoffs.rows.map((row) => [row.id, row]));
      const byEvent = new Map(events.rows.map((row) => [`${row.session_id}/${Number(row.seq)}`, row]));
      // A row gone between the two statements is left out of the page, as if the page had been read a moment later.
      const items = page.flatMap((key): QueueItem[] => {
        if (key.item_type === "entry") {
          const row = byEntry.get(key.item_id);
          if (row === undefined) return [];
          return [
            { type: "entry", entry: { ...toStoredEntry(row, undefined), artifacts: artifacts.get(row.id) ?? [] } },
          ];
        }
        if (key.item_type === "handoff") {
          const row = byHandoff.get(key.item_id);
          if (row === undefined) return [];
          return [{ type: "handoff", handoff: toQueuedHandoff(row, handoffArtifacts.get(row.id) ?? []) }];
        }
        const row = byEvent.get(`${key.item_id}/${Number(key.item_seq)}`);
        return row === undefined ? [] : [{ type: "session_event", event: toQueuedEvent(row) }];
      });
      return { items, hasMore: keys.length > request.limit };
    },
  };
}
