import type { Migration } from "./migration.js";

/**
 * Trust for workflow memory: the write-time screen's verdict on memory
 * revisions, handoffs and session events, as entries carry theirs.
 *
 * - `trust` is `unverified` (the screen found nothing) or `quarantined` (it
 *   found instruction-shaped content); `trust_reasons` holds its findings,
 *   `<field>:<rule>`.
 * - `memories` holds the current revision's trust and `memory_versions`
 *   each revision's, so a read by version or time knows what it returns.
 * - Rows written before this migration were never screened: they are
 *   `unverified` with no reasons, as entries written before trust states were.
 *   A constant default: no table rewrite.
 */
export const workflowTrust: Migration = {
  version: 17,
  name: "workflow trust",
  async up(tx) {
    for (const table of ["memories", "memory_versions", "handoffs", "session_events"]) {
      await tx.query(`
ALTER TABLE ${table}
  ADD COLUMN trust text NOT NULL DEFAULT 'unverified' CONSTRAINT ${table}_trust_check CHECK (trust IN ('unverified', 'quarantined')),
  ADD COLUMN trust_reasons text[] NOT NULL DEFAULT '{}'`);
    }
  },
};
