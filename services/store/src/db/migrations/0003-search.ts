import type { Migration } from "./migration.js";

/**
 * What search needs beside the entries. Adds tables, a function and a
 * trigger only; data written under schema 2 carries over unchanged.
 *
 * - `search_settings`: settings the stored data was built with, so a store
 *   can tell when its configuration no longer matches the data. Holds
 *   `text_search_language`, the text-search configuration the generated
 *   `search_vector` uses (schema 1 built it with `english`).
 * - `embedding_spaces`: every (embedding model, dimension) that has chunks,
 *   filled by a statement-level trigger on `chunks` (one small insert per
 *   committed entry, whatever its chunk count) and backfilled here. Semantic
 *   search builds one HNSW index per space (see docs/retrieval.md).
 */
export const searchSchema: Migration = {
  version: 3,
  name: "search settings and embedding spaces",
  async up(tx) {
    await tx.query(`
CREATE TABLE search_settings (
  key text PRIMARY KEY,
  value text NOT NULL,
  updated_at timestamptz(3) NOT NULL DEFAULT now()
)`);
    await tx.query("INSERT INTO search_settings (key, value) VALUES ('text_search_language', 'english')");

    await tx.query(`
CREATE TABLE embedding_spaces (
  embedding_model text NOT NULL,
  dimension integer NOT NULL CONSTRAINT embedding_spaces_dimension_check CHECK (dimension > 0),
  first_seen_at timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (embedding_model, dimension)
)`);
    const { rows } = await tx.query<{ type: string }>(
      "SELECT format_type(atttypid, atttypmod) AS type FROM pg_attribute WHERE attrelid = 'chunks'::regclass AND attname = 'embedding'",
    );
    const dimensionOf = rows[0]?.type === "vector" ? "vector_dims(embedding)" : "cardinality(embedding)";
    await tx.query(
      `INSERT INTO embedding_spaces (embedding_model, dimension) SELECT DISTINCT embedding_model, ${dimensionOf} FROM chunks`,
    );
    await tx.query(`
CREATE FUNCTION register_embedding_spaces() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO embedding_spaces (embedding_model, dimension)
  SELECT DISTINCT n.embedding_model, ${dimensionOf.replace("embedding", "n.embedding")} FROM new_chunks n
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END
$$`);
    await tx.query(`
CREATE TRIGGER chunks_register_embedding_spaces AFTER INSERT ON chunks
REFERENCING NEW TABLE AS new_chunks
FOR EACH STATEMENT EXECUTE FUNCTION register_embedding_spaces()`);
  },
};
