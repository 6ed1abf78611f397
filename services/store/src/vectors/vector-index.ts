/**
 * The seam between semantic search and whatever answers "which visible
 * entries hold the chunks nearest to this vector": pgvector (or an exact scan)
 * inside PostgreSQL, a native graph in the store process, or Qdrant. Whatever implements it
 * must honour invariant I-1: the access predicate and every filter decide the
 * candidates before the limit (Qdrant: payload filters on tenant, owner,
 * visibility and grantees, every hit re-checked against PostgreSQL), so a
 * result never holds an entry the caller may not see and a filter never
 * starves the top k.
 */
import type { TextSpan } from "../model/entry-model.js";
import type { Principal } from "../model/principal.js";
import type { SearchFilter } from "../model/search-filter.js";

export interface VectorQuery {
  /** Only chunks embedded by this model are compared. */
  model: string;
  /** Finite numbers; its length is the embedding space's dimension. */
  vector: readonly number[];
  filter: SearchFilter;
  /** How many distinct entries to return, nearest first. */
  limit: number;
}

/** An entry and its chunk nearest to the query. */
export interface VectorHit {
  entryId: string;
  /** Cosine distance (0 identical, 2 opposite); NaN when a vector has no direction. */
  distance: number;
  chunk: TextSpan;
}

export type VectorStrategy = "ann" | "exact";

export interface VectorSearchResult {
  /** Distinct entries, nearest first (ties by entry id). */
  hits: VectorHit[];
  /**
   * The plan, chosen from what the caller can see (never from entries it
   * cannot, invariant I-2): `exact` when the caller's candidates were few
   * enough to compare every one (or no approximate index serves the space
   * yet); `ann` when the approximate index was asked, even if an exact pass
   * then completed its answer.
   */
  strategy: VectorStrategy;
  warnings: string[];
}

/** A chunk a committed transaction inserted, with its vector. */
export interface CommittedChunk {
  id: string;
  model: string;
  vector: readonly number[];
}

export interface VectorIndex {
  /** What answers queries, e.g. `pgvector`, `real[]`, `qdrant`. */
  readonly kind: string;
  /** Readies the index for the embedding spaces already stored (run before serving). */
  prepare(): Promise<void>;
  /** The `query.limit` visible, filtered entries whose best chunk is nearest to the vector. */
  nearestEntries(principal: Principal, query: VectorQuery): Promise<VectorSearchResult>;
  /** Builds the approximate index of one embedding space now (no-op where there is none); resolves when it can serve. */
  buildIndex(model: string, dimension: number): Promise<void>;
  /**
   * Told, right after a transaction commits, of the chunks it inserted: how an
   * index kept outside PostgreSQL in this process (the graph backend) stays
   * current. Must not throw; the write is already acknowledged by then.
   */
  chunksCommitted?(chunks: readonly CommittedChunk[]): void;
  /** Waits for index builds in flight. */
  close(): Promise<void>;
}
