/**
 * The SQL of semantic search in PostgreSQL: the exact comparison of every
 * visible candidate, the approximate scan over a space's HNSW index, the plan
 * between them (a bounded count of what the caller can see), the names and
 * types an index is built with, and the mapping of chunk rows to hits that
 * the graph backend shares.
 */
import { createHash } from "node:crypto";
import { accessPredicate } from "../filters/access-predicate.js";
import { createSqlParams, type SqlDatabase, type SqlExecutor } from "../db/sql-database.js";
import type { Principal } from "../model/principal.js";
import { searchFilterConditions } from "../filters/search-filter-sql.js";
import type { VectorHit, VectorQuery } from "./vector-index.js";
import { toVectorLiteral } from "./vector-literal.js";

/** How long a caller's candidate count is trusted when choosing between exact and approximate search. */
export const countTtlMs = 30_000;

/** The pgvector type an HNSW index of a dimension casts to: `vector` up to 2,000 dimensions, `halfvec` up to 4,000, none beyond. */
export function annTypeOf(dimension: number): { type: "vector" | "halfvec"; ops: string } | undefined {
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

/** Up to `cap` rows counted by `sql` (a bounded count, so it costs at most `cap` row visits). */
export async function countAtMost(db: SqlExecutor, sql: string, values: unknown[]): Promise<number> {
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

/** The `query.limit` visible, filtered entries nearest to the vector, each by its nearest chunk, compared exactly. */
export async function exactNearest(db: SqlDatabase, principal: Principal, query: VectorQuery): Promise<VectorHit[]> {
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

/** Up to `chunkLimit` visible, filtered chunks nearest to the vector, walked along the space's HNSW index. */
export async function approximateChunks(
  tx: SqlExecutor,
  vectorType: SqlDatabase["vectorType"],
  principal: Principal,
  query: VectorQuery,
  chunkLimit: number,
): Promise<ChunkRow[]> {
  const ann = annTypeOf(query.vector.length);
  if (ann === undefined) throw new Error("no approximate index for this dimension");
  const params = createSqlParams();
  const cast = `${ann.type}(${dimensionLiteral(query.vector.length)})`;
  // The same expression as the index's, so the planner can walk the HNSW graph in distance order.
  const distance = `(c.embedding::${cast}) <=> ${params.add(toVectorLiteral(vectorType, query.vector))}::${cast}`;
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
