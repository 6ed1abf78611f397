import type { SqlExecutor } from "../sql-database.js";
import type { Migration } from "./migration.js";

/** Most kept versions one backfill statement parses. */
const backfillRows = 500;
/** Most bytes of text one backfill statement parses (a version holds up to a few megabytes). */
const backfillBytes = 16 * 1024 * 1024;

/** Where the backfill continues: after this (entry_id, version) in primary-key order. */
interface BackfillKey {
  entryId: string;
  version: number;
}

/**
 * The next batch of kept versions in primary-key order after `after`: at most
 * `backfillRows` of them, cut where their texts pass `backfillBytes` (but
 * never empty, so a single huge version still moves the backfill forwards).
 * `octet_length` reads a stored text's size without detoasting it.
 */
async function nextBatch(
  tx: SqlExecutor,
  after: BackfillKey,
): Promise<{ last: BackfillKey; rows: number } | undefined> {
  const { rows } = await tx.query<{ entry_id: string; version: number; running: string }>(
    `SELECT entry_id, version, sum(octet_length(text)) OVER (ORDER BY entry_id, version) AS running
     FROM entry_versions WHERE (entry_id, version) > ($1::uuid, $2::integer)
     ORDER BY entry_id, version LIMIT ${backfillRows}`,
    [after.entryId, after.version],
  );
  let taken = 0;
  while (taken < rows.length && (taken === 0 || Number(rows[taken]?.running) <= backfillBytes)) taken += 1;
  const last = rows[taken - 1];
  return last === undefined ? undefined : { last: { entryId: last.entry_id, version: last.version }, rows: taken };
}

/**
 * Stored full-text vectors of kept versions, so a search of what the store
 * held at an earlier instant (`as_of`) looks versions up in an index instead
 * of parsing each changed entry's earlier text on every call.
 *
 * - `entry_versions` gains `search_vector`, written with each kept version
 *   (copied from the entry's own vector, which was computed from the same
 *   text by `entry_search_vector`, in the store's text-search language) and
 *   recomputed with the entries' when that language changes.
 * - Versions kept before this migration are parsed here, in primary-key
 *   order, in batches bounded by rows and by bytes of text, so no statement
 *   holds more than one batch of texts and vectors at once.
 * - A GIN index over it, built once the column is filled.
 */
export const keptVersionSearchVectors: Migration = {
  version: 8,
  name: "search vectors of kept versions",
  async up(tx, context) {
    await tx.query("ALTER TABLE entry_versions ADD COLUMN search_vector tsvector");
    const started = performance.now();
    let after: BackfillKey = { entryId: "00000000-0000-0000-0000-000000000000", version: 0 };
    let versions = 0;
    let batches = 0;
    for (let batch = await nextBatch(tx, after); batch !== undefined; batch = await nextBatch(tx, after)) {
      await tx.query(
        `UPDATE entry_versions SET search_vector = entry_search_vector(text)
         WHERE (entry_id, version) > ($1::uuid, $2::integer) AND (entry_id, version) <= ($3::uuid, $4::integer)`,
        [after.entryId, after.version, batch.last.entryId, batch.last.version],
      );
      after = batch.last;
      versions += batch.rows;
      batches += 1;
    }
    if (versions > 0)
      context.logger.info(
        { versions, batches, ms: Math.round(performance.now() - started) },
        "computed the full-text vectors of kept versions",
      );
    await tx.query("ALTER TABLE entry_versions ALTER COLUMN search_vector SET NOT NULL");
    await tx.query("CREATE INDEX entry_versions_search_idx ON entry_versions USING gin (search_vector)");
  },
};
