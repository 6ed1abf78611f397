/**
 * Semantic search answered by Qdrant. A query carries payload filters for
 * the tenant, the embedding model, the access rules (owner, tenant
 * visibility, or shared with one of the caller's grantee keys) and every
 * search filter Qdrant can express (thread, source, tags, dates, content
 * type); then every hit is re-checked in PostgreSQL with the one access
 * predicate and the full filter SQL, joined to the chunk itself, before it
 * counts (a space whose collection does not exist yet is answered by
 * PostgreSQL outright). Pages grow until `limit` distinct entries pass or
 * Qdrant runs out, so no filter starves the top k; after `searchMaxPoints`
 * points the query goes to PostgreSQL's exact scan instead. Chunks and entries the outbox has
 * not delivered yet are compared exactly in PostgreSQL and merged in, so a
 * write is searchable the moment it commits. When Qdrant fails, the query is
 * answered from PostgreSQL's vectors (all of them are there) with a warning.
 * Documented in docs/vector-backends.md.
 */
import type { Schemas } from "@qdrant/js-client-rest";
import type { Logger } from "@context-hub/common";
import { accessPredicate } from "../filters/access-predicate.js";
import { createSqlParams, type SqlDatabase } from "../db/sql-database.js";
import { isAdmin, type Principal } from "../model/principal.js";
import { collectionName, groupKey, subjectKey, type QdrantCollections } from "./qdrant-collections.js";
import type { QdrantSettings } from "./qdrant-config.js";
import { searchFilterConditions } from "../filters/search-filter-sql.js";
import { defaultReadableTrustStates } from "../filters/trust-filter.js";
import type { VectorHit, VectorIndex, VectorQuery, VectorSearchResult } from "./vector-index.js";
import { toVectorLiteral } from "./vector-literal.js";

type Filter = Schemas["Filter"];
type Condition = Schemas["Condition"];

/** The largest page one Qdrant query asks for. */
const maxPage = 1_000;
/**
 * Outbox rows up to which a search also compares the pending chunks exactly
 * in PostgreSQL, so an entry is found the moment its write commits. Beyond
 * it (Qdrant far behind) the search says so instead.
 */
const maxPendingMerge = 2_000;

/** Qdrant failed or could not be reached; the search falls back to PostgreSQL. */
class QdrantUnavailable extends Error {
  override readonly name = "QdrantUnavailable";
}

/** The space's collection does not exist yet: nothing of it was delivered, so PostgreSQL's answer is the whole answer. */
class CollectionMissing extends Error {
  override readonly name = "CollectionMissing";
}

async function fromQdrant<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof Error && "status" in error && (error as { status: unknown }).status === 404)
      throw new CollectionMissing(error.message, { cause: error });
    throw new QdrantUnavailable(describeFailure(error), { cause: error });
  }
}

function describeFailure(error: unknown): string {
  if (!(error instanceof Error)) return "unknown error";
  const cause = (error as { cause?: unknown }).cause;
  const code = cause instanceof Error && "code" in cause ? String((cause as { code: unknown }).code) : undefined;
  const status = "status" in error ? ` (HTTP ${String((error as { status: unknown }).status)})` : "";
  return `${code ?? error.message}${status}`.slice(0, 200);
}

const match = (key: string, value: string): Condition => ({ key, match: { value } });

/**
 * The payload filter of a query: tenant, model, access, then what the search
 * filter lets Qdrant decide (thread, source, content type, tags, creation
 * dates, trust state). Metadata conditions, valid time, kinds and title
 * prefixes are not in the payload's reach; the PostgreSQL re-check applies
 * them (and every other condition again).
 */
export function toQdrantFilter(principal: Principal, query: VectorQuery): Filter {
  const must: Condition[] = [match("tenant", principal.tenant), match("embedding_model", query.model)];
  if (!isAdmin(principal)) {
    const keys = [subjectKey(principal.subject), ...principal.groups.map(groupKey)];
    must.push({
      should: [
        match("owner", principal.subject),
        match("visibility", "tenant"),
        { must: [match("visibility", "shared"), { key: "readers", match: { any: keys } }] },
      ],
    });
  }
  const { filter } = query;
  if (filter.threadId !== undefined) must.push(match("thread_id", filter.threadId));
  if (filter.source !== undefined) must.push(match("source", filter.source));
  if (filter.contentType !== undefined) must.push(match("content_type", filter.contentType));
  if (filter.tagsAny.length > 0) must.push({ key: "tags", match: { any: [...filter.tagsAny] } });
  for (const tag of filter.tagsAll) must.push(match("tags", tag));
  if (!filter.includeQuarantined) must.push({ key: "trust_state", match: { any: [...defaultReadableTrustStates] } });
  if (filter.createdFrom !== undefined || filter.createdTo !== undefined) {
    must.push({
      key: "created_at",
      range: { gte: filter.createdFrom?.getTime() ?? null, lt: filter.createdTo?.getTime() ?? null },
    });
  }
  return { must };
}

export interface QdrantVectorIndexOptions {
  db: SqlDatabase;
  logger: Logger;
  collections: QdrantCollections;
  settings: Pick<QdrantSettings, "searchPage" | "searchMaxPoints">;
  /** PostgreSQL's own index: answers while Qdrant is unavailable, and when a query would examine too many points. */
  fallback: VectorIndex;
}

interface VerifiedChunk {
  id: string;
  entry_id: string;
  start_offset: number;
  end_offset: number;
}

/** The chunks among `ids` that exist now and belong to entries the caller may see under the full filter. */
async function recheck(
  db: SqlDatabase,
  principal: Principal,
  query: VectorQuery,
  ids: readonly string[],
): Promise<Map<string, VerifiedChunk>> {
  if (ids.length === 0) return new Map();
  const params = createSqlParams();
  const conditions = [
    `c.id = ANY(${params.add(ids)}::uuid[])`,
    `c.embedding_model = ${params.add(query.model)}`,
    accessPredicate(principal, "e", params),
    ...searchFilterConditions(principal, query.filter, "e", params),
  ];
  const { rows } = await db.query<VerifiedChunk>(
    `SELECT c.id, c.entry_id, c.start_offset, c.end_offset FROM chunks c JOIN entries e ON e.id = c.entry_id WHERE ${conditions.join(" AND ")}`,
    params.values,
  );
  return new Map(rows.map((row) => [row.id, row]));
}

/**
 * The visible, filtered entries among those the outbox has not delivered
 * yet (new chunks, and entries whose access or filter payload changed),
 * each with its nearest chunk, compared exactly; `undefined` when more
 * of them wait than a search should compare. Only pending rows the caller
 * may see are counted, so whether the backlog warning shows never depends
 * on other principals' writes (invariant I-2).
 */
async function pendingHits(
  db: SqlDatabase,
  principal: Principal,
  query: VectorQuery,
): Promise<VectorHit[] | undefined> {
  // An empty outbox answers the same for every caller, so the cheap check comes first.
  const { rows: anyWaiting } = await db.query<{ found: boolean }>(
    "SELECT EXISTS (SELECT 1 FROM vector_outbox) AS found",
  );
  if (anyWaiting[0]?.found !== true) return [];
  const params = createSqlParams();
  const dimensionOf = db.vectorType === "pgvector" ? "vector_dims(c.embedding)" : "cardinality(c.embedding)";
  const where = [
    `c.embedding_model = ${params.add(query.model)}`,
    `${dimensionOf} = ${params.add(query.vector.length)}`,
    accessPredicate(principal, "e", params),
    ...searchFilterConditions(principal, query.filter, "e", params),
  ].join(" AND ");
  const pendingChunks = `WITH pending AS (
         SELECT o.target AS chunk_id FROM vector_outbox o WHERE o.op = 'chunk_upsert'
         UNION
         SELECT c.id FROM vector_outbox o JOIN chunks c ON c.entry_id = o.target WHERE o.op = 'entry_refresh'
       )`;
  const { rows: visible } = await db.query<{ count: number }>(
    `${pendingChunks}
       SELECT count(*)::integer AS count FROM (
         SELECT 1 FROM pending p JOIN chunks c ON c.id = p.chunk_id JOIN entries e ON e.id = c.entry_id WHERE ${where} LIMIT ${maxPendingMerge + 1}
       ) v`,
    [...params.values],
  );
  const waiting = visible[0]?.count ?? 0;
  if (waiting === 0) return [];
  if (waiting > maxPendingMerge) return undefined;
  const vector = params.add(toVectorLiteral(db.vectorType, query.vector));
  const distance =
    db.vectorType === "pgvector"
      ? `c.embedding <=> ${vector}::vector`
      : `1 - (SELECT sum(t.a * t.b) / nullif(sqrt(sum(t.a * t.a) * sum(t.b * t.b)), 0) FROM unnest(c.embedding::float8[], ${vector}::float8[]) AS t (a, b))`;
  const { rows } = await db.query<{
    entry_id: string;
    start_offset: number;
    end_offset: number;
    distance: number | null;
  }>(
    `${pendingChunks}
       SELECT DISTINCT ON (c.entry_id) c.entry_id, c.start_offset, c.end_offset, ${distance} AS distance
       FROM pending p JOIN chunks c ON c.id = p.chunk_id JOIN entries e ON e.id = c.entry_id
       WHERE ${where}
       ORDER BY c.entry_id, distance, c.ordinal`,
    params.values,
  );
  return rows.map((row) => ({
    entryId: row.entry_id,
    distance: row.distance === null ? Number.NaN : Number(row.distance),
    chunk: { start: row.start_offset, end: row.end_offset },
  }));
}

/** Qdrant's hits and the pending ones together: each entry once, at its nearest chunk, nearest first (ties by id). */
function merge(found: readonly VectorHit[], pending: readonly VectorHit[], limit: number): VectorHit[] {
  const best = new Map<string, VectorHit>();
  const rank = (hit: VectorHit) => (Number.isNaN(hit.distance) ? Number.POSITIVE_INFINITY : hit.distance);
  for (const hit of [...found, ...pending]) {
    const seen = best.get(hit.entryId);
    if (seen === undefined || rank(hit) < rank(seen)) best.set(hit.entryId, hit);
  }
  return [...best.values()]
    .sort((a, b) => rank(a) - rank(b) || (a.entryId < b.entryId ? -1 : a.entryId > b.entryId ? 1 : 0))
    .slice(0, limit);
}

/** What a Qdrant search reads: the database it re-checks in, the collections, and its page settings. */
type QdrantSearchContext = Pick<QdrantVectorIndexOptions, "db" | "collections" | "settings">;

/**
 * Qdrant's nearest entries under the payload filter, every hit re-checked in PostgreSQL, in growing pages until
 * `limit` entries pass or Qdrant runs out; undefined past `searchMaxPoints` points (the exact scan decides then).
 */
async function searchQdrant(
  { db, collections, settings }: QdrantSearchContext,
  principal: Principal,
  query: VectorQuery,
): Promise<VectorSearchResult | undefined> {
  const name = collectionName(collections.prefix, query.model, query.vector.length);
  const filter = toQdrantFilter(principal, query);
  const hits: VectorHit[] = [];
  const decided = new Set<string>();
  let page = Math.min(maxPage, Math.max(settings.searchPage, query.limit * 3));
  let offset = 0;
  for (;;) {
    const { points } = await fromQdrant(() =>
      collections.client.query(name, {
        query: [...query.vector],
        filter,
        limit: page,
        offset,
        with_payload: ["entry_id"],
        with_vector: false,
      }),
    );
    const verified = await recheck(
      db,
      principal,
      query,
      points.filter((point) => !decided.has(String(point.payload?.entry_id))).map((point) => String(point.id)),
    );
    // Points come nearest first, so an entry's first verified point is its best chunk.
    for (const point of points) {
      const chunk = verified.get(String(point.id));
      if (chunk === undefined || decided.has(chunk.entry_id)) continue;
      decided.add(chunk.entry_id);
      hits.push({
        entryId: chunk.entry_id,
        distance: 1 - point.score,
        chunk: { start: chunk.start_offset, end: chunk.end_offset },
      });
    }
    if (hits.length >= query.limit || points.length < page) return { hits, strategy: "ann", warnings: [] };
    offset += points.length;
    // Most of what Qdrant let through failed the re-check (metadata or trust filters): PostgreSQL's exact scan decides those outright.
    if (offset >= settings.searchMaxPoints) return undefined;
    page = Math.min(maxPage, page * 2);
  }
}

/** Semantic search by Qdrant, re-checked and completed in PostgreSQL (see the top of this file). */
export function createQdrantVectorIndex(options: QdrantVectorIndexOptions): VectorIndex {
  const { db, logger, collections, settings, fallback } = options;

  return {
    kind: "qdrant",

    async prepare() {
      await fallback.prepare();
      const { rows } = await db.query<{ embedding_model: string; dimension: number }>(
        "SELECT embedding_model, dimension FROM embedding_spaces ORDER BY first_seen_at",
      );
      try {
        for (const space of rows) await collections.ensure(space.embedding_model, space.dimension);
      } catch (error) {
        // Qdrant down at start-up must not stop the store: the relay creates collections when it can deliver, and search falls back meanwhile.
        logger.warn(
          { err: error },
          "Qdrant is unavailable at start-up; semantic search answers from PostgreSQL until it is back",
        );
      }
    },

    async buildIndex(model, dimension) {
      await fallback.buildIndex(model, dimension);
      await collections
        .ensure(model, dimension)
        .catch((error: unknown) =>
          logger.warn({ err: error, model, dimension }, "creating a Qdrant collection failed"),
        );
    },

    async nearestEntries(principal, query) {
      try {
        const answer = await searchQdrant({ db, collections, settings }, principal, query);
        // Qdrant's pages ran past the limit (most points failed the re-check): PostgreSQL answers. How many failed depends on
        // entries the caller cannot see, so the strategy stays Qdrant's (invariant I-2).
        if (answer === undefined) return { ...(await fallback.nearestEntries(principal, query)), strategy: "ann" };
        const pending = await pendingHits(db, principal, query);
        if (pending !== undefined) return { ...answer, hits: merge(answer.hits, pending, query.limit) };
        return {
          ...answer,
          hits: merge(answer.hits, [], query.limit),
          warnings: [
            `the Qdrant vector index is more than ${maxPendingMerge} changes behind PostgreSQL; the newest writes and sharing changes may be missing from these results`,
          ],
        };
      } catch (error) {
        if (error instanceof CollectionMissing) return await fallback.nearestEntries(principal, query);
        if (!(error instanceof QdrantUnavailable)) throw error;
        logger.warn(
          { err: error.cause, reason: error.message },
          "Qdrant did not answer a semantic search; answering from PostgreSQL",
        );
        const answer = await fallback.nearestEntries(principal, query);
        return {
          ...answer,
          warnings: [
            ...answer.warnings,
            `the Qdrant vector index is unavailable (${error.message}); these results come from the vectors kept in PostgreSQL`,
          ],
        };
      }
    },

    async close() {
      await fallback.close();
    },
  };
}
