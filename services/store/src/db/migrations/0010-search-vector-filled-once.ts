import type { Migration } from "./migration.js";

/**
 * Fills `entries.search_vector` when a writer did not: on insert when it is
 * null, on an update that changes the text but leaves the vector as it was.
 * Every path that sets the text (the store's writes, the text-search language
 * rebuild, tests and benches writing rows directly) so ends with the vector
 * `entry_search_vector` gives for the new text.
 */
const fillSearchVectorFunction = `
CREATE FUNCTION entries_fill_search_vector() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF NEW.search_vector IS NULL THEN NEW.search_vector := entry_search_vector(NEW.text); END IF;
  ELSIF NEW.text IS DISTINCT FROM OLD.text AND NEW.search_vector IS NOT DISTINCT FROM OLD.search_vector THEN
    NEW.search_vector := entry_search_vector(NEW.text);
  END IF;
  RETURN NEW;
END
$$`;

/**
 * The full-text vector of an entry is parsed once per write, and may be
 * parsed before the write's transaction.
 *
 * Migration 9 made `search_length` a generated column over
 * `entry_search_vector(text)` beside the generated `search_vector`, so every
 * write parsed its text twice, both times inside the transaction (on PGlite,
 * where every caller's statements share one thread, 0.2–0.6 s each for a
 * megabyte). Here:
 *
 * - `search_vector` becomes a plain column (its stored values are kept: they
 *   are what `entry_search_vector` gave) that the store fills, computing a
 *   long text's vector in a statement of its own before the transaction
 *   opens; the trigger above fills it for any writer that does not;
 * - `search_length` is generated from the stored vector instead of parsing
 *   the text again (a generated column may not read another generated
 *   column, hence the order). Re-adding it rewrites the table once, counting
 *   each stored vector's positions without parsing any text.
 */
export const searchVectorFilledOnce: Migration = {
  version: 10,
  name: "full-text vectors parsed once per write",
  async up(tx, context) {
    const started = performance.now();
    await tx.query("ALTER TABLE entries DROP COLUMN search_length");
    await tx.query("ALTER TABLE entries ALTER COLUMN search_vector DROP EXPRESSION");
    await tx.query("ALTER TABLE entries ALTER COLUMN search_vector SET NOT NULL");
    await tx.query(fillSearchVectorFunction);
    await tx.query(
      "CREATE TRIGGER entries_fill_search_vector BEFORE INSERT OR UPDATE OF text ON entries FOR EACH ROW EXECUTE FUNCTION entries_fill_search_vector()",
    );
    await tx.query(
      "ALTER TABLE entries ADD COLUMN search_length integer GENERATED ALWAYS AS (search_vector_length(search_vector)) STORED",
    );
    const { rows } = await tx.query<{ entries: string }>("SELECT count(*) AS entries FROM entries");
    const entries = Number(rows[0]?.entries ?? 0);
    if (entries > 0)
      context.logger.info(
        { entries, ms: Math.round(performance.now() - started) },
        "full-text lengths now read from the stored vectors",
      );
  },
};
