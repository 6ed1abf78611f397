import type { Migration } from "./migration.js";

/**
 * What a tenant's own BM25 index ranks (see search/bm25-indexes.ts).
 *
 * - `entry_search_tokens(tsvector)`: the stored vector as text an index
 *   tokenises without parsing the entry again: every lexeme hex-encoded
 *   behind an `x` (one token under the `simple` configuration, whatever the
 *   lexeme holds), repeated as often as the vector holds it (once when it
 *   has no positions). Its token counts are the vector's, so an index over
 *   it counts the same document frequencies and lengths as the store's
 *   BM25 in SQL (`search_length`).
 * - `bm25_indexes`: one row per tenant that has its own index: the index's
 *   name and the `k1` and `b` it was built with (a change rebuilds it).
 */
const tokens = `
CREATE FUNCTION entry_search_tokens(lexemes tsvector) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT coalesce(string_agg(repeat('x' || encode(convert_to(u.lexeme, 'UTF8'), 'hex') || ' ', coalesce(array_length(u.positions, 1), 1)), ''), '')
  FROM unnest(lexemes) AS u
$$`;

const registry = `
CREATE TABLE bm25_indexes (
  tenant text PRIMARY KEY,
  index_name text NOT NULL UNIQUE,
  k1 float8 NOT NULL,
  b float8 NOT NULL,
  built_at timestamptz NOT NULL DEFAULT now()
)`;

export const bm25IndexTokens: Migration = {
  version: 19,
  name: "bm25 index tokens",
  async up(tx) {
    await tx.query(tokens);
    await tx.query(registry);
  },
};
