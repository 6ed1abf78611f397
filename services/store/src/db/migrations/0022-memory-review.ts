import type { Migration } from "./migration.js";

/**
 * Reviewed memories: a reviewer may approve (`verified`) or reject
 * (`rejected`) a memory revision the write-time screen quarantined, through
 * the review queue and its mirror entry, as entries are reviewed.
 *
 * - `memories.trust` and `memory_versions.trust` take the entries' four
 *   states (handoffs and session events keep their two: nobody reviews them).
 * - `memory_versions` records a revision's review: who, when and the note
 *   (NULL for a revision nobody reviewed, every one before this migration).
 *   Nullable columns without defaults: no table rewrite.
 */
export const memoryReview: Migration = {
  version: 22,
  name: "memory review",
  async up(tx) {
    for (const table of ["memories", "memory_versions"]) {
      await tx.query(`
ALTER TABLE ${table}
  DROP CONSTRAINT ${table}_trust_check,
  ADD CONSTRAINT ${table}_trust_check CHECK (trust IN ('unverified', 'verified', 'quarantined', 'rejected'))`);
    }
    await tx.query(
      "ALTER TABLE memory_versions ADD COLUMN reviewed_by text, ADD COLUMN reviewed_at timestamptz, ADD COLUMN review_note text",
    );
  },
};
