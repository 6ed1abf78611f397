import { accessPredicate, deletedEntryPredicate } from "../filters/access-predicate.js";
import { createAuditStatements } from "../audit/audit-repository.js";
import { currentRequestId } from "../audit/audit.js";
import { createSqlParams, type SqlDatabase, type SqlExecutor } from "../db/sql-database.js";
import type { JsonObject, Visibility } from "../model/entry-model.js";
import type { ChangeKind, EntryHistory, EntryVersionRecord, HistoryRepository, TombstoneRecord } from "./history.js";
import { isAdmin, type Principal } from "../model/principal.js";
import type { TrustState } from "../model/trust.js";
import { fromPromptArgumentsJson } from "../model/prompt-arguments.js";
import { linkedArtifactsOrNull } from "../entries/write-scope/entry-artifact-links.js";

interface VersionRow {
  version: number;
  current: boolean;
  redacted: boolean;
  text: string;
  content_hash: string;
  metadata: JsonObject;
  tags: string[];
  summary: string;
  visibility: Visibility;
  trust_state: TrustState;
  written_by: string;
  written_at: Date;
  superseded_by: string | null;
  superseded_at: Date | null;
  change_kind: ChangeKind;
  restored_from: number | null;
  valid_from: Date | null;
  valid_to: Date | null;
  kind: string;
  title: string | null;
  prompt_arguments: unknown;
  prompt_name: string | null;
  artifacts: string[] | null;
}

interface TombstoneRow {
  id: string;
  thread_id: string;
  content_hash: string;
  owner: string;
  deleted_by: string;
  deleted_at: Date;
  reason: string;
  history_purged_at: Date | null;
}

function toVersion(row: VersionRow): EntryVersionRecord {
  return {
    version: row.version,
    current: row.current,
    redacted: row.redacted,
    text: row.text,
    contentHash: row.content_hash,
    metadata: row.metadata,
    tags: row.tags,
    summary: row.summary,
    visibility: row.visibility,
    trustState: row.trust_state,
    writtenBy: row.written_by,
    writtenAt: row.written_at,
    supersededBy: row.superseded_by ?? undefined,
    supersededAt: row.superseded_at ?? undefined,
    change: row.change_kind,
    restoredFrom: row.restored_from ?? undefined,
    validFrom: row.valid_from ?? undefined,
    validTo: row.valid_to ?? undefined,
    kind: row.kind,
    title: row.title ?? undefined,
    promptArguments: fromPromptArgumentsJson(row.prompt_arguments),
    artifacts: row.artifacts ?? [],
    promptName: row.prompt_name ?? undefined,
  };
}

function toTombstone(row: TombstoneRow): TombstoneRecord {
  return {
    id: row.id,
    threadId: row.thread_id,
    contentHash: row.content_hash,
    owner: row.owner,
    deletedBy: row.deleted_by,
    deletedAt: row.deleted_at,
    reason: row.reason,
    historyPurgedAt: row.history_purged_at ?? undefined,
  };
}

// A version's content as the caller may see it: emptied in SQL when redacted, so hidden text never leaves the database.
// Its hash goes too: a plain SHA-256 of a short text confirms a guess of it offline.
const versionContent = (redacted: string) => `
  CASE WHEN ${redacted} THEN '' ELSE r.text END AS text,
  CASE WHEN ${redacted} THEN '' ELSE r.content_hash END AS content_hash,
  CASE WHEN ${redacted} THEN '{}'::jsonb ELSE r.metadata END AS metadata,
  CASE WHEN ${redacted} THEN '{}'::text[] ELSE r.tags END AS tags,
  CASE WHEN ${redacted} THEN '' ELSE r.summary END AS summary,
  CASE WHEN ${redacted} THEN NULL ELSE r.valid_from END AS valid_from,
  CASE WHEN ${redacted} THEN NULL ELSE r.valid_to END AS valid_to,
  CASE WHEN ${redacted} THEN NULL ELSE r.title END AS title,
  CASE WHEN ${redacted} THEN NULL ELSE r.prompt_arguments END AS prompt_arguments,
  CASE WHEN ${redacted} THEN NULL ELSE r.prompt_name END AS prompt_name,
  CASE WHEN ${redacted} THEN NULL ELSE r.artifacts END AS artifacts,
  ${redacted} AS redacted`;

const versionColumns =
  "r.version, r.current, r.visibility, r.kind, r.trust_state, r.written_by, r.written_at, r.superseded_by, r.superseded_at, r.change_kind, r.restored_from";

interface Page {
  version: number | undefined;
  limit: number;
  offset: number;
}

/** The history of a live entry the caller may read: its current row and its kept versions, as one ranked union. */
async function readLive(
  tx: SqlExecutor,
  principal: Principal,
  id: string,
  page: Page,
): Promise<EntryHistory | undefined> {
  const params = createSqlParams();
  const target = `SELECT e.* FROM entries e WHERE e.id = ${params.add(id)} AND ${accessPredicate(principal, "e", params)}`;
  const { rows: heads } = await tx.query<{ id: string; thread_id: string; owner: string; version: number }>(
    `SELECT t.id, t.thread_id, t.owner, t.version FROM (${target}) t`,
    params.values,
  );
  const head = heads[0];
  if (head === undefined) return undefined;

  const versionParams = createSqlParams();
  const scoped = `SELECT e.* FROM entries e WHERE e.id = ${versionParams.add(id)} AND ${accessPredicate(principal, "e", versionParams)}`;
  // Private while current, and the caller is neither the owner nor an admin: redacted.
  const redacted = `(r.visibility = 'private' AND r.owner <> ${versionParams.add(principal.subject)} AND NOT ${versionParams.add(isAdmin(principal))}::boolean)`;
  const versionFilter = page.version === undefined ? "" : `WHERE r.version = ${versionParams.add(page.version)}`;
  const { rows } = await tx.query<VersionRow>(
    `WITH target AS (${scoped}),
     r AS (
       SELECT t.version, true AS current, t.owner, t.visibility, t.text, t.content_hash, t.metadata, t.tags, t.summary, t.trust_state,
         coalesce(t.updated_by, t.owner) AS written_by, t.updated_at AS written_at, NULL::text AS superseded_by, NULL::timestamptz AS superseded_at,
         t.change_kind, t.restored_from, t.valid_from, t.valid_to, t.kind, t.title, t.prompt_arguments, t.prompt_name, ${linkedArtifactsOrNull("t")} AS artifacts
       FROM target t
       UNION ALL
       SELECT v.version, false, t.owner, v.visibility, v.text, v.content_hash, v.metadata, v.tags, v.summary, v.trust_state,
         v.written_by, v.written_at, v.superseded_by, v.superseded_at, v.change_kind, v.restored_from, v.valid_from, v.valid_to, v.kind, v.title, v.prompt_arguments, v.prompt_name, v.artifacts
       FROM entry_versions v JOIN target t ON v.entry_id = t.id
     )
     SELECT ${versionColumns}, ${versionContent(redacted)}
     FROM r ${versionFilter}
     ORDER BY r.version DESC
     LIMIT ${versionParams.add(page.limit + 1)} OFFSET ${versionParams.add(page.offset)}`,
    versionParams.values,
  );
  return {
    id: head.id,
    threadId: head.thread_id,
    owner: head.owner,
    latestVersion: head.version,
    versions: rows.slice(0, page.limit).map(toVersion),
    hasMore: rows.length > page.limit,
    tombstone: undefined,
  };
}

/** The history of a deleted entry the caller owned: its tombstone and its kept versions (none once purged). */
async function readDeleted(
  tx: SqlExecutor,
  principal: Principal,
  id: string,
  page: Page,
): Promise<EntryHistory | undefined> {
  const params = createSqlParams();
  const { rows: stones } = await tx.query<TombstoneRow>(
    `SELECT t.id, t.thread_id, t.content_hash, t.owner, t.deleted_by, t.deleted_at, t.reason, t.history_purged_at
     FROM tombstones t WHERE t.id = ${params.add(id)} AND ${deletedEntryPredicate(principal, "t", params)}`,
    params.values,
  );
  const stone = stones[0];
  if (stone === undefined) return undefined;

  const versionParams = createSqlParams();
  const versionFilter = page.version === undefined ? "" : `AND v.version = ${versionParams.add(page.version)}`;
  const target = `SELECT t.id FROM tombstones t WHERE t.id = ${versionParams.add(id)} AND ${deletedEntryPredicate(principal, "t", versionParams)}`;
  const { rows } = await tx.query<VersionRow>(
    `WITH target AS (${target}),
     r AS (
       SELECT v.version, false AS current, v.visibility, v.text, v.content_hash, v.metadata, v.tags, v.summary, v.trust_state, v.written_by, v.written_at,
         v.superseded_by, v.superseded_at, v.change_kind, v.restored_from, v.valid_from, v.valid_to, v.kind, v.title, v.prompt_arguments, v.prompt_name, v.artifacts
       FROM entry_versions v JOIN target t ON v.entry_id = t.id
       WHERE true ${versionFilter}
     )
     SELECT ${versionColumns}, ${versionContent("false")}
     FROM r ORDER BY r.version DESC
     LIMIT ${versionParams.add(page.limit + 1)} OFFSET ${versionParams.add(page.offset)}`,
    versionParams.values,
  );
  const { rows: latest } = await tx.query<{ latest: number | null }>(
    "SELECT max(version) AS latest FROM entry_versions WHERE entry_id = $1",
    [stone.id],
  );
  return {
    id: stone.id,
    threadId: stone.thread_id,
    owner: stone.owner,
    latestVersion: latest[0]?.latest ?? 0,
    versions: rows.slice(0, page.limit).map(toVersion),
    hasMore: rows.length > page.limit,
    tombstone: toTombstone(stone),
  };
}

/** Tombstones erased per purge transaction, so a large purge never holds one long transaction. */
const purgeBatch = 1000;

/** Erases the kept versions of one batch of tombstones deleted by `cutoff`, auditing each tenant's part. */
async function purgeBatchIn(tx: SqlExecutor, cutoff: Date): Promise<{ entries: number; versions: number }> {
  const { rows: due } = await tx.query<{ id: string; tenant: string }>(
    `SELECT t.id, t.tenant FROM tombstones t WHERE t.history_purged_at IS NULL AND t.deleted_at <= $1 ORDER BY t.id LIMIT $2 FOR UPDATE SKIP LOCKED`,
    [cutoff.toISOString(), purgeBatch],
  );
  if (due.length === 0) return { entries: 0, versions: 0 };
  const ids = due.map((row) => row.id);
  const erased = await tx.query<{ entry_id: string }>(
    "DELETE FROM entry_versions WHERE entry_id = ANY($1::uuid[]) RETURNING entry_id",
    [ids],
  );
  await tx.query("UPDATE tombstones SET history_purged_at = now() WHERE id = ANY($1::uuid[])", [ids]);
  const audit = createAuditStatements(tx);
  const tenantOf = new Map(due.map((row) => [row.id, row.tenant]));
  for (const tenant of new Set(due.map((row) => row.tenant))) {
    const tenantIds = due.filter((row) => row.tenant === tenant).map((row) => row.id);
    audit.record(tenant, {
      actor: "operator",
      action: "history.purge",
      outcome: "ok",
      targetIds: tenantIds,
      beforeHashes: [],
      afterHashes: [],
      details: {
        versions: erased.rows.filter((row) => tenantOf.get(row.entry_id) === tenant).length,
        cutoff: cutoff.toISOString(),
      },
    });
  }
  await audit.flush(currentRequestId());
  return { entries: due.length, versions: erased.rowCount };
}

/** The history repository over a migrated database. */
export function createHistoryRepository(db: SqlDatabase): HistoryRepository {
  return {
    async resolve(principal, queries, maxMatches) {
      if (queries.length === 0) return [];
      const params = createSqlParams();
      const lower = params.add(queries.map((query) => query.lower));
      const upper = params.add(queries.map((query) => query.upper));
      const { rows } = await db.query<{ position: number; id: string }>(
        `SELECT q.position::integer AS position, m.id
         FROM unnest(${lower}::uuid[], ${upper}::uuid[]) WITH ORDINALITY AS q (lower_id, upper_id, position)
         CROSS JOIN LATERAL (
           SELECT u.id FROM (
             SELECT e.id FROM entries e WHERE e.id BETWEEN q.lower_id AND q.upper_id AND ${accessPredicate(principal, "e", params)}
             UNION
             SELECT t.id FROM tombstones t WHERE t.id BETWEEN q.lower_id AND q.upper_id AND ${deletedEntryPredicate(principal, "t", params)}
           ) u
           ORDER BY u.id
           LIMIT ${params.add(maxMatches)}
         ) m
         ORDER BY q.position, m.id`,
        params.values,
      );
      const matches: string[][] = queries.map(() => []);
      for (const row of rows) matches[row.position - 1]?.push(row.id);
      return matches;
    },

    read(principal, id, page) {
      // One snapshot, so the current row and the kept versions agree.
      return db.transaction(async (tx) => {
        await tx.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
        return (await readLive(tx, principal, id, page)) ?? (await readDeleted(tx, principal, id, page));
      });
    },

    async purge(cutoff, dryRun) {
      if (dryRun) {
        const { rows } = await db.query<{ entries: number; versions: number }>(
          `SELECT count(*)::integer AS entries, coalesce(sum((SELECT count(*) FROM entry_versions v WHERE v.entry_id = t.id)), 0)::integer AS versions
           FROM tombstones t WHERE t.history_purged_at IS NULL AND t.deleted_at <= $1`,
          [cutoff.toISOString()],
        );
        return { entries: rows[0]?.entries ?? 0, versions: rows[0]?.versions ?? 0 };
      }
      let entries = 0;
      let versions = 0;
      for (;;) {
        const batch = await db.transaction((tx) => purgeBatchIn(tx, cutoff));
        entries += batch.entries;
        versions += batch.versions;
        if (batch.entries < purgeBatch) return { entries, versions };
      }
    },
  };
}
