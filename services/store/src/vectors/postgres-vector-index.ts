/**
 * Semantic search inside PostgreSQL (pgvector, or `real[]` vectors without
 * it): the plan of each search between the exact comparison and the HNSW
 * scan, over the statements of postgres-vector-queries.ts and the index
 * builds of hnsw-index-builds.ts.
 */
import type { Logger } from "@context-hub/common";
import type { SqlDatabase } from "../db/sql-database.js";
import { createHnswIndexBuilds } from "./hnsw-index-builds.js";
import type { PostgresVectorIndexSettings } from "./postgres-vector-settings.js";
import {
  annTypeOf,
  approximateChunks,
  bestPerEntry,
  createExactPreference,
  exactNearest,
} from "./postgres-vector-queries.js";
import type { VectorIndex, VectorSearchResult } from "./vector-index.js";

// Re-exported where search/search-config.ts imports them from.
export { defaultVectorIndexSettings, type PostgresVectorIndexSettings } from "./postgres-vector-settings.js";

/** The approximate scan never reads more chunks than this before the search falls back to an exact one. */
const maxAnnChunks = 20_000;
/** pgvector's ceiling on hnsw.ef_search. */
const maxEfSearch = 1_000;

function versionAtLeast(version: string, major: number, minor: number): boolean {
  const [a = 0, b = 0] = version.split(".").map(Number);
  return a > major || (a === major && b >= minor);
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
  const { db, settings } = options;
  let iterativeScans: boolean | undefined;

  async function supportsIterativeScans(): Promise<boolean> {
    if (iterativeScans !== undefined) return iterativeScans;
    const { rows } = await db.query<{ version: string }>(
      "SELECT extversion AS version FROM pg_extension WHERE extname = 'vector'",
    );
    iterativeScans = versionAtLeast(rows[0]?.version ?? "0", 0, 8);
    return iterativeScans;
  }

  const preferExact = createExactPreference(db, settings.exactBelowChunks);
  const builds = createHnswIndexBuilds(options);

  return {
    kind: db.vectorType,

    async prepare() {
      if (db.vectorType !== "pgvector") return;
      await supportsIterativeScans();
      if (!settings.buildIndexes) return;
      await builds.start();
    },

    buildIndex: builds.buildIndex,

    async nearestEntries(principal, query): Promise<VectorSearchResult> {
      const dimension = query.vector.length;
      // The index is checked (and its build started) even when this search goes exact, so a space is indexed while it is small.
      const indexed =
        db.vectorType === "pgvector" &&
        annTypeOf(dimension) !== undefined &&
        (await builds.annReady(query.model, dimension));
      if ((await preferExact(principal, query)) || !indexed) {
        return { hits: await exactNearest(db, principal, query), strategy: "exact", warnings: [] };
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
          return approximateChunks(tx, db.vectorType, principal, query, chunkLimit);
        });
        const hits = bestPerEntry(rows);
        if (hits.length >= query.limit) return { hits: hits.slice(0, query.limit), strategy: "ann", warnings: [] };
        // Fewer chunks than asked for: the scan ran dry (the visible, filtered set is small near the query), or walked past
        // its ceiling; compare exactly. The strategy stays the plan's: whether the graph runs dry depends on entries the
        // caller cannot see.
        const ranDry = rows.length < chunkLimit;
        const ceiling = iterative ? maxAnnChunks : maxEfSearch;
        if (ranDry || chunkLimit >= ceiling)
          return { hits: await exactNearest(db, principal, query), strategy: "ann", warnings: [] };
        chunkLimit = Math.min(chunkLimit * 4, ceiling);
      }
    },

    async close() {
      await builds.close();
    },
  };
}
