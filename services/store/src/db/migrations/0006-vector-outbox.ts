import type { Migration } from "./migration.js";

/**
 * The transactional outbox that feeds an external vector index (Qdrant) from
 * PostgreSQL, which stays the source of truth: chunk vectors are still
 * written to `chunks` in the commit's transaction, and triggers add one
 * outbox row per change in that same transaction, so a committed change is
 * never lost and a rolled-back one never escapes.
 *
 * - `vector_outbox`: what the index must catch up with, in commit order
 *   (`seq`). `chunk_upsert` / `chunk_delete` name a chunk (with its
 *   embedding space, so a deleted chunk's collection is known);
 *   `entry_refresh` names an entry whose access or filter payload changed
 *   (visibility, owner, thread, trust state, tags, source, content type,
 *   metadata, or a grant on it or on its thread). The relay reads the
 *   current rows in PostgreSQL for each and makes the index match them, so a
 *   row delivered twice, or out of order, changes nothing.
 * - The trigger functions, for statement-level triggers with transition
 *   tables (one insert per statement, however many chunks). The triggers
 *   themselves are created only while `search_settings.vector_outbox` is
 *   `on`, which only a store configured for Qdrant sets
 *   (services/store/src/vector-outbox.ts): a pgvector deployment has no
 *   trigger, so it captures no transition rows and writes nothing.
 */
export const vectorOutbox: Migration = {
  version: 6,
  name: "vector outbox",
  async up(tx) {
    const { rows } = await tx.query<{ type: string }>(
      "SELECT format_type(atttypid, atttypmod) AS type FROM pg_attribute WHERE attrelid = 'chunks'::regclass AND attname = 'embedding'",
    );
    const dimensionOf = (alias: string) =>
      rows[0]?.type === "vector" ? `vector_dims(${alias}.embedding)` : `cardinality(${alias}.embedding)`;

    await tx.query(`
CREATE TABLE vector_outbox (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  op text NOT NULL CONSTRAINT vector_outbox_op_check CHECK (op IN ('chunk_upsert', 'chunk_delete', 'entry_refresh')),
  target uuid NOT NULL,
  embedding_model text,
  dimension integer,
  enqueued_at timestamptz(3) NOT NULL DEFAULT clock_timestamp()
)`);

    await tx.query(`
CREATE FUNCTION vector_outbox_enabled() RETURNS boolean
LANGUAGE sql STABLE AS $$
  SELECT EXISTS (SELECT 1 FROM search_settings WHERE key = 'vector_outbox' AND value = 'on')
$$`);

    await tx.query(`
CREATE FUNCTION vector_outbox_chunks() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF NOT vector_outbox_enabled() THEN
    RETURN NULL;
  END IF;
  IF TG_OP = 'INSERT' THEN
    INSERT INTO vector_outbox (op, target, embedding_model, dimension)
    SELECT 'chunk_upsert', n.id, n.embedding_model, ${dimensionOf("n")} FROM vector_outbox_new_chunks n ORDER BY n.id;
  ELSE
    INSERT INTO vector_outbox (op, target, embedding_model, dimension)
    SELECT 'chunk_delete', o.id, o.embedding_model, ${dimensionOf("o")} FROM vector_outbox_old_chunks o ORDER BY o.id;
  END IF;
  RETURN NULL;
END
$$`);

    // A chunk re-embedded in place (`context-hub reembed`) leaves its old space and enters its new one under the same id.
    await tx.query(`
CREATE FUNCTION vector_outbox_chunk_updates() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF NOT vector_outbox_enabled() THEN
    RETURN NULL;
  END IF;
  INSERT INTO vector_outbox (op, target, embedding_model, dimension)
  SELECT u.op, u.target, u.embedding_model, u.dimension FROM (
    SELECT 'chunk_delete' AS op, o.id AS target, o.embedding_model, ${dimensionOf("o")} AS dimension, 0 AS step
      FROM vector_outbox_old_chunks o JOIN vector_outbox_new_chunks n ON n.id = o.id
     WHERE (n.embedding_model, n.embedding, n.entry_id, n.start_offset, n.end_offset) IS DISTINCT FROM (o.embedding_model, o.embedding, o.entry_id, o.start_offset, o.end_offset)
    UNION ALL
    SELECT 'chunk_upsert', n.id, n.embedding_model, ${dimensionOf("n")}, 1
      FROM vector_outbox_old_chunks o JOIN vector_outbox_new_chunks n ON n.id = o.id
     WHERE (n.embedding_model, n.embedding, n.entry_id, n.start_offset, n.end_offset) IS DISTINCT FROM (o.embedding_model, o.embedding, o.entry_id, o.start_offset, o.end_offset)
  ) u ORDER BY u.step, u.target;
  RETURN NULL;
END
$$`);

    // Only changes to what the index's payload holds (access and filter fields) need a refresh; text changes replace the chunks themselves.
    await tx.query(`
CREATE FUNCTION vector_outbox_entries() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF NOT vector_outbox_enabled() THEN
    RETURN NULL;
  END IF;
  INSERT INTO vector_outbox (op, target)
  SELECT 'entry_refresh', n.id
  FROM vector_outbox_new_entries n JOIN vector_outbox_old_entries o ON o.id = n.id
  WHERE (n.visibility, n.owner, n.thread_id, n.trust_state, n.tags, n.source, n.content_type, n.metadata)
        IS DISTINCT FROM (o.visibility, o.owner, o.thread_id, o.trust_state, o.tags, o.source, o.content_type, o.metadata)
    AND EXISTS (SELECT 1 FROM chunks c WHERE c.entry_id = n.id)
  ORDER BY n.id;
  RETURN NULL;
END
$$`);

    // A grant opens an entry (entry grant) or the grantor's entries in a thread (thread grant), so both kinds refresh those entries.
    await tx.query(`
CREATE FUNCTION vector_outbox_grants() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF NOT vector_outbox_enabled() THEN
    RETURN NULL;
  END IF;
  IF TG_OP = 'INSERT' THEN
    INSERT INTO vector_outbox (op, target)
    SELECT 'entry_refresh', g.entry_id FROM vector_outbox_new_grants g WHERE g.entry_id IS NOT NULL
    UNION
    SELECT 'entry_refresh', e.id FROM vector_outbox_new_grants g
      JOIN entries e ON e.tenant = g.tenant AND e.thread_id = g.thread_id AND e.owner = g.grantor
    WHERE g.thread_id IS NOT NULL;
  ELSE
    INSERT INTO vector_outbox (op, target)
    SELECT 'entry_refresh', g.entry_id FROM vector_outbox_old_grants g WHERE g.entry_id IS NOT NULL
    UNION
    SELECT 'entry_refresh', e.id FROM vector_outbox_old_grants g
      JOIN entries e ON e.tenant = g.tenant AND e.thread_id = g.thread_id AND e.owner = g.grantor
    WHERE g.thread_id IS NOT NULL;
  END IF;
  RETURN NULL;
END
$$`);
  },
};
