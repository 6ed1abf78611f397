import type { Migration } from "./migration.js";

/** Every GIN index of the schema: entries' words, tags and metadata, kept versions' words, memories' tags, audit targets. */
export const ginIndexes = [
  "entries_search_idx",
  "entries_tags_idx",
  "entries_metadata_idx",
  "entry_versions_search_idx",
  "memories_tags_idx",
  "audit_log_targets_idx",
] as const;

/**
 * GIN indexes take each write into their tree at once (`fastupdate = off`)
 * instead of queueing it in a pending list that every search of the index
 * reads through until a vacuum, or a write that fills it, merges it.
 * PGlite runs no autovacuum, so the list grew to its 4 MB limit: a search
 * for one rare word read about 200 pages (≈ 1 ms instead of 0.05), and the
 * write that filled the list merged it on the store's one thread (≈ 0.2 s,
 * every reader waiting). The lists already queued are merged here.
 */
export const ginWithoutPendingList: Migration = {
  version: 25,
  name: "gin without pending list",
  async up(tx) {
    for (const index of ginIndexes) {
      await tx.query(`ALTER INDEX ${index} SET (fastupdate = off)`);
      await tx.query(`SELECT gin_clean_pending_list('${index}'::regclass)`);
    }
  },
};
