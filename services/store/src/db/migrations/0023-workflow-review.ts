import type { Migration } from "./migration.js";

/**
 * Reviewed handoffs and session events: a reviewer may approve (`verified`)
 * or reject (`rejected`) a handoff or a session event the write-time screen
 * quarantined, through the review queue, as entries and memories are
 * reviewed.
 *
 * - `handoffs.trust` and `session_events.trust` take the entries' four states.
 * - Both record their review: who, when and the note (NULL for one nobody
 *   reviewed, every one before this migration). Nullable columns without
 *   defaults: no table rewrite.
 * - Partial indexes hold the rows that wait for a reviewer, per tenant, in
 *   the queue's order, so listing the queue does not read every handoff or
 *   event of a tenant.
 */
export const workflowReview: Migration = {
  version: 23,
  name: "workflow review",
  async up(tx) {
    for (const table of ["handoffs", "session_events"]) {
      await tx.query(`
ALTER TABLE ${table}
  DROP CONSTRAINT ${table}_trust_check,
  ADD CONSTRAINT ${table}_trust_check CHECK (trust IN ('unverified', 'verified', 'quarantined', 'rejected')),
  ADD COLUMN reviewed_by text,
  ADD COLUMN reviewed_at timestamptz,
  ADD COLUMN review_note text`);
    }
    await tx.query(
      "CREATE INDEX handoffs_review_idx ON handoffs (tenant, created_at) WHERE trust IN ('quarantined', 'rejected')",
    );
    await tx.query(
      "CREATE INDEX session_events_review_idx ON session_events (tenant, written_at) WHERE trust IN ('quarantined', 'rejected')",
    );
  },
};
