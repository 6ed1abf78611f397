/**
 * The entry repository's reads outside write transactions: whole entries,
 * reply sizes, withheld states, listings, threads and counts. Every one
 * composes the access predicate, and all but the counts the trust filter.
 */
import { createSqlParams, type SqlDatabase, type SqlExecutor } from "../db/sql-database.js";
import { accessPredicate } from "../filters/access-predicate.js";
import { entrySource, previewSourceColumn, searchFilterConditions } from "../filters/search-filter-sql.js";
import { trustFilter } from "../filters/trust-filter.js";
import type {
  DailyActivity,
  EntryFilter,
  EntryStatistics,
  ListEntriesResult,
  StoredEntry,
  ThreadPage,
} from "../model/entry-model.js";
import type { Principal } from "../model/principal.js";
import { trustStates, type TrustState } from "../model/trust.js";
import { entryColumns, toStoredEntry, type EntryRow } from "./entry-rows.js";
import { withLinkedArtifacts } from "./listed-artifacts.js";
import { storedArtifactLinks } from "./write-scope/entry-artifact-links.js";

/** Counts arrive as bigint, which the drivers hand over as strings or bigints. */
function toCount(value: unknown): number {
  return Number(value ?? 0);
}

interface ThreadRow {
  total: unknown;
  thread_id: string | null;
  entry_count: number;
  user_entries: number;
  agent_entries: number;
  first_at: Date;
  last_at: Date;
}

interface StatisticsRow {
  entries: unknown;
  threads: unknown;
  user_entries: unknown;
  agent_entries: unknown;
  multimodal_entries: unknown;
  images: unknown;
  chunks: unknown;
  text_bytes: unknown;
  owned_entries: unknown;
  oldest_at: Date | null;
  newest_at: Date | null;
}

/** How many bytes each visible entry among `ids` would add to a reply (see `EntryRepository.replySizes`). */
export async function replySizes(
  db: SqlDatabase,
  principal: Principal,
  ids: readonly string[],
  includeImages: boolean,
  includeQuarantined = false,
): Promise<Map<string, number>> {
  const params = createSqlParams();
  const idList = params.add(ids);
  // octet_length reads a stored value's size from its header: no text or image is detoasted for it.
  const { rows } = await db.query<{ id: string; size: string | number }>(
    `SELECT e.id,
       octet_length(e.text) + octet_length(e.summary) + octet_length(e.metadata::text)
       + coalesce((SELECT sum(octet_length(n.summary) + octet_length(n.heading) + octet_length(n.node_id)) FROM node_summaries n WHERE n.entry_id = e.id), 0)
       + ${includeImages ? "coalesce((SELECT sum(i.byte_size) FROM entry_images i WHERE i.entry_id = e.id), 0)" : "0"} AS size
     FROM entries e
     WHERE e.id = ANY(${idList}::uuid[]) AND ${accessPredicate(principal, "e", params)} AND ${trustFilter("e", includeQuarantined)}`,
    params.values,
  );
  return new Map(rows.map((row) => [row.id, Number(row.size)]));
}

/** The visible entries among `ids`, complete, trust-filtered unless `includeQuarantined` (see `EntryRepository.getByIds`). */
export async function getByIds(
  db: SqlDatabase,
  principal: Principal,
  ids: readonly string[],
  includeImages: boolean,
  includeQuarantined = false,
): Promise<StoredEntry[]> {
  const read = async (executor: SqlExecutor) => {
    const params = createSqlParams();
    const idList = params.add(ids);
    const { rows } = await executor.query<EntryRow>(
      `SELECT ${entryColumns}, e.text, ${storedArtifactLinks} AS artifacts,
         (SELECT count(*)::integer FROM chunks c WHERE c.entry_id = e.id) AS chunk_count,
         (SELECT c.embedding_model FROM chunks c WHERE c.entry_id = e.id ORDER BY c.ordinal LIMIT 1) AS embedding_model,
         (SELECT json_agg(json_build_object('nodeId', n.node_id, 'heading', n.heading, 'level', n.level, 'start', n.start_offset,
                                            'end', n.end_offset, 'summary', n.summary) ORDER BY n.ordinal)
            FROM node_summaries n WHERE n.entry_id = e.id) AS node_summaries
       FROM entries e
       WHERE e.id = ANY(${idList}::uuid[]) AND ${accessPredicate(principal, "e", params)} AND ${trustFilter("e", includeQuarantined)}`,
      params.values,
    );
    if (!includeImages || rows.every((row) => row.images.length === 0))
      return rows.map((row) => toStoredEntry(row, undefined));
    const imageParams = createSqlParams();
    const imageIds = imageParams.add(rows.map((row) => row.id));
    const { rows: images } = await executor.query<{ entry_id: string; ordinal: number; data: Uint8Array }>(
      `SELECT i.entry_id, i.ordinal, i.data FROM entry_images i JOIN entries e ON e.id = i.entry_id
       WHERE i.entry_id = ANY(${imageIds}::uuid[]) AND ${accessPredicate(principal, "e", imageParams)} AND ${trustFilter("e", includeQuarantined)}`,
      imageParams.values,
    );
    const data = new Map(images.map((image) => [`${image.entry_id}/${image.ordinal}`, image.data]));
    return rows.map((row) => toStoredEntry(row, data));
  };
  if (!includeImages) return read(db);
  // Image bytes come from a second statement; one snapshot keeps them consistent with the rows.
  return db.transaction(async (tx) => {
    await tx.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
    return read(tx);
  });
}

/** The visible entries among `ids` that the trust filter leaves out, with their states. */
export async function withheldStates(
  db: SqlDatabase,
  principal: Principal,
  ids: readonly string[],
): Promise<{ id: string; state: TrustState }[]> {
  const params = createSqlParams();
  const { rows } = await db.query<{ id: string; trust_state: TrustState }>(
    `SELECT e.id, e.trust_state FROM entries e
     WHERE e.id = ANY(${params.add(ids)}::uuid[]) AND ${accessPredicate(principal, "e", params)} AND NOT (${trustFilter("e", false)})
     ORDER BY e.id`,
    params.values,
  );
  return rows.map((row) => ({ id: row.id, state: row.trust_state }));
}

/** One page of the visible entries matching `filter`, newest first, without full text, with the artifacts each links. */
export async function listEntries(
  db: SqlDatabase,
  principal: Principal,
  filter: EntryFilter,
  page: { limit: number; offset: number },
): Promise<ListEntriesResult> {
  const params = createSqlParams();
  const conditions = [
    accessPredicate(principal, "e", params),
    ...searchFilterConditions(principal, filter, "e", params),
  ];
  const { rows } = await db.query<EntryRow>(
    `SELECT ${entryColumns}, ${previewSourceColumn(filter, "e")} FROM ${entrySource(principal, filter, params)} e
     WHERE ${conditions.join(" AND ")}
     ORDER BY e.created_at DESC, e.id DESC
     LIMIT ${params.add(page.limit + 1)} OFFSET ${params.add(page.offset)}`,
    params.values,
  );
  const hasMore = rows.length > page.limit;
  const entries = rows.slice(0, page.limit).map((row) => toStoredEntry(row, undefined));
  return { entries: await withLinkedArtifacts(db, principal, entries, filter), hasMore };
}

/** One page of the threads holding visible entries, most recently active first, counting visible entries only. */
export async function listThreads(
  db: SqlDatabase,
  principal: Principal,
  page: { limit: number; offset: number },
): Promise<ThreadPage> {
  const params = createSqlParams();
  // One row always (the page joined to it may be empty), so the total is known even past the last page.
  const { rows } = await db.query<ThreadRow>(
    `WITH threads AS (
       SELECT e.thread_id, count(*)::integer AS entry_count,
         count(*) FILTER (WHERE e.source = 'user')::integer AS user_entries,
         count(*) FILTER (WHERE e.source = 'agent')::integer AS agent_entries,
         min(e.created_at) AS first_at, max(e.updated_at) AS last_at
       FROM entries e WHERE ${accessPredicate(principal, "e", params)}
       GROUP BY e.thread_id
     )
     SELECT (SELECT count(*) FROM threads) AS total, p.*
     FROM (SELECT 1) AS one
     LEFT JOIN LATERAL (
       SELECT * FROM threads ORDER BY last_at DESC, thread_id LIMIT ${params.add(page.limit + 1)} OFFSET ${params.add(page.offset)}
     ) p ON true`,
    params.values,
  );
  const threads = rows.flatMap((row) =>
    row.thread_id === null
      ? []
      : [
          {
            threadId: row.thread_id,
            entryCount: row.entry_count,
            userEntries: row.user_entries,
            agentEntries: row.agent_entries,
            firstAt: row.first_at,
            lastAt: row.last_at,
          },
        ],
  );
  return {
    threads: threads.slice(0, page.limit),
    hasMore: threads.length > page.limit,
    total: toCount(rows[0]?.total),
  };
}

/** Counts over the visible entries, of one thread or all. */
export async function entryStatistics(
  db: SqlDatabase,
  principal: Principal,
  threadId: string | undefined,
  days: number,
): Promise<EntryStatistics> {
  const params = createSqlParams();
  const conditions = [accessPredicate(principal, "e", params)];
  if (threadId !== undefined) conditions.push(`e.thread_id = ${params.add(threadId)}`);
  const daily = days > 0 ? await dailyActivity(db, principal, threadId, days) : [];
  // octet_length reads the stored size of a text without detoasting it.
  const { rows } = await db.query<StatisticsRow>(
    `WITH visible AS (
       SELECT e.id, e.thread_id, e.source, e.owner, e.content_type, e.created_at, octet_length(e.text) AS text_bytes
       FROM entries e WHERE ${conditions.join(" AND ")}
     )
     SELECT count(*) AS entries, count(DISTINCT v.thread_id) AS threads,
       count(*) FILTER (WHERE v.source = 'user') AS user_entries,
       count(*) FILTER (WHERE v.source = 'agent') AS agent_entries,
       count(*) FILTER (WHERE v.content_type = 'multimodal') AS multimodal_entries,
       (SELECT count(*) FROM entry_images i WHERE i.entry_id IN (SELECT id FROM visible)) AS images,
       (SELECT count(*) FROM chunks c WHERE c.entry_id IN (SELECT id FROM visible)) AS chunks,
       coalesce(sum(v.text_bytes), 0) AS text_bytes,
       count(*) FILTER (WHERE v.owner = ${params.add(principal.subject)}) AS owned_entries,
       min(v.created_at) AS oldest_at, max(v.created_at) AS newest_at
     FROM visible v`,
    params.values,
  );
  const row = rows[0];
  return {
    entries: toCount(row?.entries),
    threads: toCount(row?.threads),
    userEntries: toCount(row?.user_entries),
    agentEntries: toCount(row?.agent_entries),
    multimodalEntries: toCount(row?.multimodal_entries),
    images: toCount(row?.images),
    chunks: toCount(row?.chunks),
    textBytes: toCount(row?.text_bytes),
    ownedEntries: toCount(row?.owned_entries),
    oldestAt: row?.oldest_at ?? undefined,
    newestAt: row?.newest_at ?? undefined,
    daily,
  };
}

interface DailyRow {
  date: string;
  created: unknown;
  by_users: unknown;
  by_agents: unknown;
  unverified: unknown;
  verified: unknown;
  quarantined: unknown;
  rejected: unknown;
  writes: unknown;
}

/**
 * The last `days` UTC days (today included, oldest first, every day present) of activity on the entries the caller
 * may see now: those created each day, by source and by the trust state each has now, and the writes each day,
 * counted from the versions history keeps (each superseded version's write time) and each entry's last change.
 */
async function dailyActivity(
  db: SqlDatabase,
  principal: Principal,
  threadId: string | undefined,
  days: number,
): Promise<DailyActivity[]> {
  const params = createSqlParams();
  const conditions = [accessPredicate(principal, "e", params)];
  if (threadId !== undefined) conditions.push(`e.thread_id = ${params.add(threadId)}`);
  const span = params.add(days);
  const { rows } = await db.query<DailyRow>(
    `WITH first_day AS (
       SELECT (now() AT TIME ZONE 'UTC')::date - (${span}::int - 1) AS day
     ), since AS (
       SELECT day, day::timestamp AT TIME ZONE 'UTC' AS at FROM first_day
     ), visible AS (
       SELECT e.id, e.source, e.trust_state, e.created_at, e.updated_at FROM entries e WHERE ${conditions.join(" AND ")}
     ), created AS (
       SELECT (v.created_at AT TIME ZONE 'UTC')::date AS day, count(*) AS created,
         count(*) FILTER (WHERE v.source = 'user') AS by_users,
         count(*) FILTER (WHERE v.source = 'agent') AS by_agents,
         ${trustStates.map((state) => `count(*) FILTER (WHERE v.trust_state = '${state}') AS ${state}`).join(", ")}
       FROM visible v, since WHERE v.created_at >= since.at GROUP BY 1
     ), writes AS (
       SELECT w.day, count(*) AS writes FROM (
         SELECT (ev.written_at AT TIME ZONE 'UTC')::date AS day
           FROM entry_versions ev, since
           WHERE ev.entry_id IN (SELECT id FROM visible) AND ev.written_at >= since.at
         UNION ALL
         SELECT (v.updated_at AT TIME ZONE 'UTC')::date FROM visible v, since WHERE v.updated_at >= since.at
       ) w GROUP BY w.day
     )
     SELECT to_char(s.day, 'YYYY-MM-DD') AS date,
       coalesce(c.created, 0) AS created, coalesce(c.by_users, 0) AS by_users, coalesce(c.by_agents, 0) AS by_agents,
       ${trustStates.map((state) => `coalesce(c.${state}, 0) AS ${state}`).join(", ")},
       coalesce(w.writes, 0) AS writes
     FROM (SELECT (since.day + n)::date AS day FROM since, generate_series(0, ${span}::int - 1) AS n) s
     LEFT JOIN created c ON c.day = s.day
     LEFT JOIN writes w ON w.day = s.day
     ORDER BY s.day`,
    params.values,
  );
  return rows.map((row) => ({
    date: row.date,
    created: toCount(row.created),
    createdByUsers: toCount(row.by_users),
    createdByAgents: toCount(row.by_agents),
    byTrustState: {
      unverified: toCount(row.unverified),
      verified: toCount(row.verified),
      quarantined: toCount(row.quarantined),
      rejected: toCount(row.rejected),
    },
    writes: toCount(row.writes),
  }));
}
