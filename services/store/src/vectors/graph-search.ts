/**
 * A search of a space's graph: pages of the nearest points grow until enough
 * distinct entries pass PostgreSQL's re-check (the access predicate, the full
 * filter and the exact distance), or the graph gives the query up to the
 * exact scan.
 */
import type { SqlDatabase } from "../db/sql-database.js";
import { createSqlParams } from "../db/sql-database.js";
import { accessPredicate } from "../filters/access-predicate.js";
import type { Principal } from "../model/principal.js";
import { searchFilterConditions } from "../filters/search-filter-sql.js";
import { bestPerEntry, dimensionLiteral, type ChunkRow } from "./postgres-vector-queries.js";
import { removeKeys, type Space } from "./graph-space.js";
import type { VectorQuery, VectorSearchResult } from "./vector-index.js";
import { toVectorLiteral } from "./vector-literal.js";

/** The smallest page of graph points one search re-checks; pages grow fourfold while too few pass. */
const firstPage = 64;
/** Points one search examines before it hands the query to PostgreSQL's exact scan instead. */
export const maxGraphPoints = 10_000;

/**
 * The chunks among `ids` that exist now in the query's space, each with
 * PostgreSQL's exact distance and whether the caller may see its entry
 * under the full filter.
 */
async function recheck(
  db: SqlDatabase,
  principal: Principal,
  query: VectorQuery,
  ids: readonly string[],
): Promise<(ChunkRow & { id: string; visible: boolean })[]> {
  if (ids.length === 0) return [];
  const params = createSqlParams();
  const vector = params.add(toVectorLiteral("pgvector", query.vector));
  const visible = [
    accessPredicate(principal, "e", params),
    ...searchFilterConditions(principal, query.filter, "e", params),
  ].join(" AND ");
  const { rows } = await db.query<ChunkRow & { id: string; visible: boolean }>(
    `SELECT c.id::text AS id, c.entry_id, c.start_offset, c.end_offset, c.embedding <=> ${vector}::vector AS distance, (${visible}) AS visible
     FROM chunks c JOIN entries e ON e.id = c.entry_id
     WHERE c.id = ANY(${params.add(ids)}::uuid[]) AND c.embedding_model = ${params.add(query.model)} AND vector_dims(c.embedding) = ${dimensionLiteral(query.vector.length)}`,
    params.values,
  );
  return rows;
}

/** Cosine distance as pgvector's `<=>` gives it: NaN for a zero vector (`cosineSimilarity` of @context-hub/text gives 0). */
function cosineDistance(a: Float32Array, b: readonly number[]): number {
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let index = 0; index < a.length; index++) {
    const x = a[index]!;
    const y = b[index] ?? 0;
    dot += x * y;
    normA += x * x;
    normB += y * y;
  }
  return 1 - dot / Math.sqrt(normA * normB);
}

/**
 * The chunks committed but not yet in the graph, nearest `target` first (their vectors are in memory), re-checked a
 * page at a time until `limit` entries pass or none are left: a chunk further down is no nearer than any of those
 * entries' best. A megabyte's ~770 chunks waiting for the graph then cost a search one page, not all of them.
 */
async function pendingHits(
  db: SqlDatabase,
  space: Space,
  principal: Principal,
  query: VectorQuery,
  target: Float32Array,
): Promise<ChunkRow[]> {
  if (space.pending.length === 0) return [];
  const order = space.pending
    .map((chunk) => {
      const distance = cosineDistance(target, chunk.vector);
      return { id: chunk.id, distance: Number.isNaN(distance) ? Number.POSITIVE_INFINITY : distance };
    })
    .sort((a, b) => a.distance - b.distance);
  const passed: ChunkRow[] = [];
  const entries = new Set<string>();
  let page = Math.max(firstPage, query.limit * 4);
  for (let start = 0; start < order.length && entries.size < query.limit; page *= 4) {
    const ids = order.slice(start, start + page).map((chunk) => chunk.id);
    start += ids.length;
    for (const row of await recheck(db, principal, query, ids))
      if (row.visible) {
        passed.push(row);
        entries.add(row.entry_id);
      }
  }
  return passed;
}

/** The nearest entries from `space`'s graph, each re-checked; undefined when the exact scan should decide. */
export async function searchGraph(
  db: SqlDatabase,
  space: Space,
  principal: Principal,
  query: VectorQuery,
): Promise<VectorSearchResult | undefined> {
  const target = Float32Array.from(query.vector);
  const checked = new Set<bigint>();
  // Chunks committed but not yet inserted into the graph compete too, each with its exact distance, so a search
  // during an insert finds what a search after it would.
  const passed = await pendingHits(db, space, principal, query, target);
  let page = Math.max(firstPage, query.limit * 4);
  for (;;) {
    const found = space.graph.search(target, page, 1);
    const fresh: bigint[] = [];
    for (const key of found.keys) {
      if (checked.has(key)) continue;
      checked.add(key);
      fresh.push(key);
    }
    const ids = fresh.map((key) => space.ids.get(key)).filter((id): id is string => id !== undefined);
    const rows = await recheck(db, principal, query, ids);
    for (const row of rows) if (row.visible) passed.push(row);
    const existing = new Set(rows.map((row) => row.id));
    // Chunks deleted, replaced by an update or moved to another model since they were added leave the graph now.
    removeKeys(
      space,
      fresh.filter((key) => !existing.has(space.ids.get(key) ?? "")),
    );
    const hits = bestPerEntry(passed);
    if (hits.length >= query.limit || found.keys.length < page)
      return { hits: hits.slice(0, query.limit), strategy: "ann", warnings: [] };
    // Most of what the graph offered failed the re-check (a selective filter): the exact scan decides those outright.
    if (page >= maxGraphPoints) return undefined;
    page = Math.min(maxGraphPoints, page * 4);
  }
}
