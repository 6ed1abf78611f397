import type { Migration } from "./migration.js";

/**
 * The token count of a full-text vector: each lexeme counts once per
 * position it holds. A stripped lexeme (no positions) counts once. A tsvector
 * keeps at most 256 positions per lexeme and clamps positions past 16,383, so
 * the count is capped in the same way as a lexeme's frequency read from the
 * same vector: BM25's length and frequencies always agree with each other.
 */
const searchVectorLengthFunction = `
CREATE FUNCTION search_vector_length(lexemes tsvector) RETURNS integer
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT coalesce(sum(coalesce(array_length(u.positions, 1), 1)), 0)::integer FROM unnest(lexemes) AS u
$$`;

/**
 * Document lengths for BM25 ranking (see docs/retrieval.md).
 *
 * - `search_vector_length(tsvector)`: the number of tokens a vector holds
 *   after the text-search configuration (stop words are not counted).
 * - `entries.search_length`: a stored generated column over the text, so
 *   every write that sets the text (insert, update, restore, the language
 *   rebuild's rewrite) recomputes it with `search_vector` and nothing else
 *   has to remember it. It parses the text a second time on write.
 * - `entry_versions.search_length`: generated from the version's stored
 *   vector (no parsing), so `as_of` searches read kept versions' lengths too.
 *
 * Adding a stored generated column rewrites each table once, computing the
 * column for every existing row.
 */
export const searchLengths: Migration = {
  version: 9,
  name: "full-text document lengths",
  async up(tx, context) {
    const started = performance.now();
    await tx.query(searchVectorLengthFunction);
    await tx.query(
      "ALTER TABLE entries ADD COLUMN search_length integer GENERATED ALWAYS AS (search_vector_length(entry_search_vector(text))) STORED",
    );
    await tx.query(
      "ALTER TABLE entry_versions ADD COLUMN search_length integer GENERATED ALWAYS AS (search_vector_length(search_vector)) STORED",
    );
    const { rows } = await tx.query<{ entries: string }>("SELECT count(*) AS entries FROM entries");
    const entries = Number(rows[0]?.entries ?? 0);
    if (entries > 0)
      context.logger.info(
        { entries, ms: Math.round(performance.now() - started) },
        "computed the full-text lengths of stored entries",
      );
  },
};
