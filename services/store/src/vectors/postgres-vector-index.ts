import { createHash } from "node:crypto";
import type { Logger } from "@context-hub/common";
import { accessPredicate } from "../filters/access-predicate.js";
import { createSqlParams, type SqlDatabase, type SqlExecutor } from "../db/sql-database.js";
import type { Principal } from "../model/principal.js";
import { searchFilterConditions } from "../filters/search-filter-sql.js";
import type { VectorHit, VectorIndex, VectorQuery, VectorSearchResult } from "./vector-index.js";
import { toVectorLiteral } from "./vector-literal.js";

/** How the vector index inside PostgreSQL behaves; documented in docs/retrieval.md. */
export interface PostgresVectorIndexSettings {
  /**
   * Compare exactly (no approximate index) when the caller's tenant holds
   * fewer chunks of the model than this, or a thread-scoped search's thread
   * fewer entries: below it a scan is about as fast and never misses.
   */
  exactBelowChunks: number;
  /** hnsw.ef_search: candidates the HNSW scan keeps (more: better recall, slower). */
  efSearch: number;
  /** HNSW build parameters of new indexes. */
  hnswM: number;
  hnswEfConstruction: number;
  /** maintenance_work_mem for an index build on PGlite, in MB. */
  buildMemoryMb: number;
  /** Build missing HNSW indexes at start-up and when a search first meets an embedding space. */
  buildIndexes: boolean;
  /**
   * The graph backend only: longest the store's start waits for its graphs to
   * catch up with `chunks` before it serves anyway, answering a space's
   * searches with the exact scan until its graph is done.
   */
  graphStartWaitMs: number;
}

export const defaultVectorIndexSettings: Readonly<PostgresVectorIndexSettings> = Object.freeze({
  exactBelowChunks: 2_000,
  efSearch: 1_000,
  // m sets what a graph insert costs (the neighbour lists it rewrites), ef_construction what the graph is worth:
  // m = 12 with ef_construction = 256 reached recall@10 0.98–1.00 at 100,000 entries (three builds), as m = 16 with
  // 200 did (0.97–0.99) and above m = 32 with 128 (0.95–0.97), for the cheapest insert of the three (docs/performance.md).
  hnswM: 12,
  hnswEfConstruction: 256,
  buildMemoryMb: 256,
  buildIndexes: true,
  // A graph rebuilt from 100,000 chunks takes most of a minute (more on a busy host): past this, serve and keep building.
  graphStartWaitMs: 10_000,
});

/** The approximate scan never reads more chunks than this before the search falls back to an exact one. */
const maxAnnChunks = 20_000;
/** pgvector's ceiling on hnsw.ef_search. */
const maxEfSearch = 1_000;
/** How often the store looks for embedding spaces that have no index yet. */
const spaceWatchMs = 60_000;
/** How long a caller's candidate count is trusted when choosing between exact and approximate search. */
const countTtlMs = 30_000;

/** The pgvector type an HNSW index of a dimension casts to: `vector` up to 2,000 dimensions, `halfvec` up to 4,000, none beyond. */
function annTypeOf(dimension: number): { type: "vector" | "halfvec"; ops: string } | undefined {
  if (dimension <= 2_000) return { type: "vector", ops: "vector_cosine_ops" };
  if (dimension <= 4_000) return { type: "halfvec", ops: "halfvec_cosine_ops" };
  return undefined;
}

/**
 * A dimension as SQL text. Type modifiers (`vector(100)`) cannot be
 * parameters, so the one number that enters SQL text is checked to be an
 * integer in range first.
 */
export function dimensionLiteral(dimension: number): string {
  if (!Number.isInteger(dimension) || dimension < 1 || dimension > 16_000)
    throw new Error(`dimension ${dimension} is out of range`);
  return String(dimension);
}

/** The name of a space's HNSW index: fixed length, derived from model and dimension, so it is always a plain identifier. */
export function hnswIndexName(model: string, dimension: number): string {
  return `chunks_hnsw_${createHash("sha256").update(`${model}\u0000${dimension}`).digest("hex").slice(0, 16)}`;
}

export interface ChunkRow {
  entry_id: string;
  start_offset: number;
  end_offset: number;
  distance: number | null;
}

function toHit(row: ChunkRow): VectorHit {
  return {
    entryId: row.entry_id,
    distance: row.distance === null ? Number.NaN : Number(row.distance),
    chunk: { start: row.start_offset, end: row.end_offset },
  };
}

const byDistance = (a: VectorHit, b: VectorHit) => {
  const da = Number.isNaN(a.distance) ? Number.POSITIVE_INFINITY : a.distance;
  const db = Number.isNaN(b.distance) ? Number.POSITIVE_INFINITY : b.distance;
  return da - db || (a.entryId < b.entryId ? -1 : a.entryId > b.entryId ? 1 : 0);
};

/** The nearest chunk of each entry among `rows` (in any order), entries nearest first. */
export function bestPerEntry(rows: readonly ChunkRow[]): VectorHit[] {
  const best = new Map<string, VectorHit>();
  for (const row of rows) {
    const hit = toHit(row);
    const seen = best.get(hit.entryId);
    if (seen === undefined || byDistance(hit, seen) < 0) best.set(hit.entryId, hit);
  }
  return [...best.values()].sort(byDistance);
}

function versionAtLeast(version: string, major: number, minor: number): boolean {
  const [a = 0, b = 0] = version.split(".").map(Number);
  return a > major || (a === major && b >= minor);
}

/** Up to `cap` rows counted by `sql` (a bounded count, so it costs at most `cap` row visits). */
async function countAtMost(db: SqlExecutor, sql: string, values: unknown[]): Promise<number> {
  const { rows } = await db.query<{ count: number }>(`SELECT count(*)::integer AS count FROM (${sql}) bounded`, values);
  return rows[0]?.count ?? 0;
}

/** Most plans one store remembers; past it the oldest is forgotten first. */
const maxCachedPlans = 1_000;

/**
 * Whether comparing every candidate beats an approximate index for a query:
 * the caller's candidates — chunks of the model in entries the caller may
 * see that pass the query's filters — number fewer than `exactBelowChunks`
 * (a bounded count, remembered per caller and query for `countTtlMs`).
 * Decided from what the caller can see alone, so the plan (and the
 * `strategy` a search reports) is the same whatever the store holds beside
 * it (invariant I-2): counting the tenant's or the thread's chunks would
 * tell a caller how many entries it cannot see. Shared by every backend
 * that keeps a graph.
 */
export function createExactPreference(
  db: SqlExecutor,
  exactBelowChunks: number,
): (principal: Principal, query: VectorQuery) => Promise<boolean> {
  const plans = new Map<string, { exact: boolean; at: number }>();
  return async (principal, query) => {
    const cap = exactBelowChunks;
    if (cap <= 0) return false;
    const key = JSON.stringify([
      principal.tenant,
      principal.subject,
      [...principal.groups].sort(),
      [...principal.scopes].sort(),
      query.model,
      query.filter,
    ]);
    const cached = plans.get(key);
    if (cached !== undefined && Date.now() - cached.at < countTtlMs) return cached.exact;
    const params = createSqlParams();
    const conditions = [
      `c.embedding_model = ${params.add(query.model)}`,
      accessPredicate(principal, "e", params),
      ...searchFilterConditions(principal, query.filter, "e", params),
    ];
    const candidates = await countAtMost(
      db,
      `SELECT 1 FROM chunks c JOIN entries e ON e.id = c.entry_id WHERE ${conditions.join(" AND ")} LIMIT ${params.add(cap)}`,
      params.values,
    );
    const exact = candidates < cap;
    plans.delete(key);
    plans.set(key, { exact, at: Date.now() });
    if (plans.size > maxCachedPlans) plans.delete(plans.keys().next().value as string);
    return exact;
  };
}

export interface PostgresVectorIndexOptions {
  db: SqlDatabase;
  logger: Logger;
  settings: PostgresVectorIndexSettings;
  /** Told when an index build has ended; building records the size of `chunks` for the planner (see search-statistics.ts). */
  onIndexBuilt?: () => Promise<unknown>;
}

/**
 * Semantic search inside PostgreSQL. With pgvector, each embedding space
 * (model, dimension) gets a partial HNSW index over `embedding::vector(N)`
 * (cosine), and a query runs the access predicate and every filter inside the
 * index scan's query with iterative scans (`hnsw.iterative_scan =
 * relaxed_order`, pgvector ≥ 0.8), over-fetching chunks until it has `limit`
 * distinct entries; when the approximate scan runs dry (the visible, filtered
 * set is small) or the candidate set is small anyway, it compares every
 * candidate exactly. With `real[]` vectors (a server without pgvector) every
 * search is exact cosine in SQL. Indexes are built at `prepare`, on a
 * search's first sight of a space, and by a check every minute for spaces
 * registered since, so a space is indexed while it is still small — but
 * only once the store holds `exactBelowChunks` chunks in all. Below that
 * every search compares exactly (no tenant can have more), so an index would
 * serve nothing and still cost every commit its graph insert, which on
 * PGlite is most of a write's database time.
 */
export function createPostgresVectorIndex(options: PostgresVectorIndexOptions): VectorIndex {
  const { db, logger, settings, onIndexBuilt } = options;
  const ready = new Set<string>();
  const builds = new Map<string, Promise<void>>();
  let iterativeScans: boolean | undefined;
  let spaceWatch: NodeJS.Timeout | undefined;
  /** Whether the store has held enough chunks for a search to use an index, and when that was last counted. */
  let largeEnough = false;
  let largeEnoughCountedAt = Number.NEGATIVE_INFINITY;

  const spaceKey = (model: string, dimension: number) => `${model}\u0000${dimension}`;

  async function supportsIterativeScans(): Promise<boolean> {
    if (iterativeScans !== undefined) return iterativeScans;
    const { rows } = await db.query<{ version: string }>(
      "SELECT extversion AS version FROM pg_extension WHERE extname = 'vector'",
    );
    iterativeScans = versionAtLeast(rows[0]?.version ?? "0", 0, 8);
    return iterativeScans;
  }

  const boundedCount = (sql: string, values: unknown[]) => countAtMost(db, sql, values);
  const preferExact = createExactPreference(db, settings.exactBelowChunks);

  /**
   * Whether indexes are worth building: the store holds `exactBelowChunks`
   * chunks (counted at most every `countTtlMs`, and at most that many rows
   * each time). Once it has, it is taken to stay so.
   */
  async function worthIndexing(): Promise<boolean> {
    if (largeEnough || Date.now() - largeEnoughCountedAt < countTtlMs) return largeEnough;
    largeEnoughCountedAt = Date.now();
    const cap = settings.exactBelowChunks;
    largeEnough = (await boundedCount("SELECT 1 FROM chunks LIMIT $1", [cap])) >= cap;
    return largeEnough;
  }

  async function indexIsValid(name: string): Promise<boolean | undefined> {
    const { rows } = await db.query<{ valid: boolean }>(
      "SELECT i.indisvalid AS valid FROM pg_index i WHERE i.indexrelid = to_regclass($1)",
      [name],
    );
    return rows[0]?.valid;
  }

  function buildIndex(model: string, dimension: number): Promise<void> {
    const ann = annTypeOf(dimension);
    if (db.vectorType !== "pgvector" || ann === undefined) return Promise.resolve();
    const key = spaceKey(model, dimension);
    if (ready.has(key)) return Promise.resolve();
    const running = builds.get(key);
    if (running !== undefined) return running;
    const name = hnswIndexName(model, dimension);
    const build = (async () => {
      const valid = await indexIsValid(name);
      if (valid === true) {
        ready.add(key);
        return;
      }
      const concurrently = db.kind === "postgres" ? "CONCURRENTLY" : "";
      // PostgreSQL quotes the name and the model itself (%I, %L): nothing a caller wrote is spliced into the DDL.
      const { rows } = await db.query<{ create: string; drop: string }>(
        `SELECT format('CREATE INDEX %s IF NOT EXISTS %I ON chunks USING hnsw ((embedding::%s(%s)) %s) WITH (m = %s, ef_construction = %s) WHERE embedding_model = %L AND vector_dims(embedding) = %s',
                  $1::text, $2::text, $3::text, $4::integer, $5::text, $6::integer, $7::integer, $8::text, $4::integer) AS create,
                format('DROP INDEX %s IF EXISTS %I', $1::text, $2::text) AS drop`,
        [concurrently, name, ann.type, dimension, ann.ops, settings.hnswM, settings.hnswEfConstruction, model],
      );
      const ddl = rows[0];
      if (ddl === undefined) throw new Error("format() returned no row");
      // A concurrent build that failed leaves an invalid index behind; IF NOT EXISTS would keep it forever.
      if (valid === false) await db.query(ddl.drop);
      const started = performance.now();
      logger.info({ model, dimension, index: name }, "building the HNSW index of an embedding space");
      if (db.kind === "postgres") {
        await db.query(ddl.create);
      } else {
        await db.transaction(async (tx) => {
          await tx.query("SELECT set_config('maintenance_work_mem', $1, true)", [`${settings.buildMemoryMb}MB`]);
          await tx.query(ddl.create);
        });
      }
      ready.add(key);
      logger.info({ model, dimension, index: name, ms: Math.round(performance.now() - started) }, "HNSW index ready");
      await onIndexBuilt?.().catch((error: unknown) =>
        logger.warn({ err: error }, "refreshing planner statistics after an index build failed"),
      );
    })().finally(() => builds.delete(key));
    builds.set(key, build);
    return build;
  }

  const logBuildFailure = (error: unknown) =>
    logger.warn({ err: error }, "building an HNSW index failed; semantic search stays exact for that space");

  /** Builds the index of every registered embedding space that has none, one after another, once indexes are worth it. */
  async function buildMissing(): Promise<void> {
    if (!(await worthIndexing())) return;
    const { rows } = await db.query<{ embedding_model: string; dimension: number }>(
      "SELECT embedding_model, dimension FROM embedding_spaces ORDER BY first_seen_at",
    );
    for (const space of rows) {
      if (!ready.has(spaceKey(space.embedding_model, space.dimension)))
        await buildIndex(space.embedding_model, space.dimension);
    }
  }

  /** Whether the space's HNSW index can serve now; if it is missing, its build starts in the background. */
  async function annReady(model: string, dimension: number): Promise<boolean> {
    const key = spaceKey(model, dimension);
    if (ready.has(key)) return true;
    if ((await indexIsValid(hnswIndexName(model, dimension))) === true) {
      ready.add(key);
      return true;
    }
    if (settings.buildIndexes && !builds.has(key) && (await worthIndexing())) {
      buildIndex(model, dimension).catch((error: unknown) =>
        logger.warn(
          { err: error, model, dimension },
          "building an HNSW index failed; semantic search stays exact for this space",
        ),
      );
    }
    return false;
  }

  async function exact(principal: Principal, query: VectorQuery): Promise<VectorHit[]> {
    const params = createSqlParams();
    const vector = params.add(toVectorLiteral(db.vectorType, query.vector));
    const dimension = dimensionLiteral(query.vector.length);
    const distance =
      db.vectorType === "pgvector"
        ? `c.embedding <=> ${vector}::vector`
        : `1 - (SELECT sum(t.a * t.b) / nullif(sqrt(sum(t.a * t.a) * sum(t.b * t.b)), 0) FROM unnest(c.embedding::float8[], ${vector}::float8[]) AS t (a, b))`;
    const dimensionOf = db.vectorType === "pgvector" ? "vector_dims(c.embedding)" : "cardinality(c.embedding)";
    const conditions = [
      accessPredicate(principal, "e", params),
      ...searchFilterConditions(principal, query.filter, "e", params),
    ];
    const { rows } = await db.query<ChunkRow>(
      `SELECT b.entry_id, b.start_offset, b.end_offset, b.distance FROM (
         SELECT DISTINCT ON (c.entry_id) c.entry_id, c.start_offset, c.end_offset, ${distance} AS distance
         FROM entries e JOIN chunks c ON c.entry_id = e.id
         WHERE ${conditions.join(" AND ")} AND c.embedding_model = ${params.add(query.model)} AND ${dimensionOf} = ${dimension}
         ORDER BY c.entry_id, distance, c.ordinal
       ) b
       ORDER BY b.distance, b.entry_id
       LIMIT ${params.add(query.limit)}`,
      params.values,
    );
    return rows.map(toHit);
  }

  async function approximate(
    tx: SqlExecutor,
    principal: Principal,
    query: VectorQuery,
    chunkLimit: number,
  ): Promise<ChunkRow[]> {
    const ann = annTypeOf(query.vector.length);
    if (ann === undefined) throw new Error("no approximate index for this dimension");
    const params = createSqlParams();
    const cast = `${ann.type}(${dimensionLiteral(query.vector.length)})`;
    // The same expression as the index's, so the planner can walk the HNSW graph in distance order.
    const distance = `(c.embedding::${cast}) <=> ${params.add(toVectorLiteral(db.vectorType, query.vector))}::${cast}`;
    const conditions = [
      `c.embedding_model = ${params.add(query.model)}`,
      `vector_dims(c.embedding) = ${dimensionLiteral(query.vector.length)}`,
      `c.tenant = ${params.add(principal.tenant)}`,
      accessPredicate(principal, "e", params),
      ...searchFilterConditions(principal, query.filter, "e", params),
    ];
    const { rows } = await tx.query<ChunkRow>(
      `SELECT c.entry_id, c.start_offset, c.end_offset, ${distance} AS distance
       FROM chunks c JOIN entries e ON e.id = c.entry_id
       WHERE ${conditions.join(" AND ")}
       ORDER BY ${distance}
       LIMIT ${params.add(chunkLimit)}`,
      params.values,
    );
    return rows;
  }

  return {
    kind: db.vectorType,

    async prepare() {
      if (db.vectorType !== "pgvector") return;
      await supportsIterativeScans();
      if (!settings.buildIndexes) return;
      // PGlite has one connection: build before serving. A server builds concurrently while the store serves (exactly, meanwhile).
      if (db.kind === "pglite") await buildMissing();
      else buildMissing().catch(logBuildFailure);
      // A model first used after start-up gets its index while its space is still small, not at the first search a year later.
      spaceWatch = setInterval(() => buildMissing().catch(logBuildFailure), spaceWatchMs);
      spaceWatch.unref();
    },

    buildIndex,

    async nearestEntries(principal, query): Promise<VectorSearchResult> {
      const dimension = query.vector.length;
      // The index is checked (and its build started) even when this search goes exact, so a space is indexed while it is small.
      const indexed =
        db.vectorType === "pgvector" && annTypeOf(dimension) !== undefined && (await annReady(query.model, dimension));
      if ((await preferExact(principal, query)) || !indexed) {
        return { hits: await exact(principal, query), strategy: "exact", warnings: [] };
      }
      const iterative = await supportsIterativeScans();
      let chunkLimit = Math.max(query.limit * 3, 30);
      for (;;) {
        const rows = await db.transaction(async (tx) => {
          // Iterative scans keep walking the graph while filtered-out chunks are skipped, so filters cannot starve the top k.
          const efSearch = Math.min(maxEfSearch, Math.max(settings.efSearch, iterative ? query.limit : chunkLimit));
          if (iterative) {
            await tx.query(
              "SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true), set_config('hnsw.ef_search', $1, true), set_config('hnsw.max_scan_tuples', $2, true)",
              [String(efSearch), String(maxAnnChunks)],
            );
          } else {
            await tx.query("SELECT set_config('hnsw.ef_search', $1, true)", [String(efSearch)]);
          }
          return approximate(tx, principal, query, chunkLimit);
        });
        const hits = bestPerEntry(rows);
        if (hits.length >= query.limit) return { hits: hits.slice(0, query.limit), strategy: "ann", warnings: [] };
        // Fewer chunks than asked for: the scan ran dry (the visible, filtered set is small near the query), or walked past
        // its ceiling; compare exactly. The strategy stays the plan's: whether the graph runs dry depends on entries the
        // caller cannot see.
        const ranDry = rows.length < chunkLimit;
        const ceiling = iterative ? maxAnnChunks : maxEfSearch;
        if (ranDry || chunkLimit >= ceiling)
          return { hits: await exact(principal, query), strategy: "ann", warnings: [] };
        chunkLimit = Math.min(chunkLimit * 4, ceiling);
      }
    },

    async close() {
      clearInterval(spaceWatch);
      await Promise.allSettled([...builds.values()]);
    },
  };
}
