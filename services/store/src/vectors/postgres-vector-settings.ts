/**
 * Settings of the vector indexes kept beside PostgreSQL's `chunks` (pgvector
 * HNSW indexes and the in-process graph), with their defaults; documented in
 * docs/retrieval.md.
 */

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
