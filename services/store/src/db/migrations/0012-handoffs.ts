import type { Migration } from "./migration.js";

/**
 * Handoffs: work one principal hands to another, with its state.
 *
 * One row per handoff, holding its current state; `version` grows by one at
 * each state change, which is made compare-and-set on it. Who may see a row is
 * decided in SQL by the handoff predicate over `tenant`, `creator`,
 * `recipient_kind` and `recipient` (a namespace recipient goes through the
 * creator's thread grants on the namespace, as memories do). Listings walk
 * the creator's handoffs and the recipients' by id, which is time-ordered.
 */
export const handoffs: Migration = {
  version: 12,
  name: "handoffs",
  async up(tx) {
    await tx.query(`
CREATE TABLE handoffs (
  id uuid PRIMARY KEY,
  tenant text NOT NULL,
  creator text NOT NULL,
  recipient_kind text NOT NULL CONSTRAINT handoffs_recipient_kind_check CHECK (recipient_kind IN ('subject', 'group', 'namespace')),
  recipient text NOT NULL,
  title text NOT NULL,
  summary text NOT NULL,
  next_steps text[] NOT NULL,
  open_questions text[] NOT NULL,
  links jsonb NOT NULL,
  priority text NOT NULL CONSTRAINT handoffs_priority_check CHECK (priority IN ('low', 'normal', 'high', 'urgent')),
  status text NOT NULL CONSTRAINT handoffs_status_check CHECK (status IN ('open', 'accepted', 'completed', 'cancelled')),
  holder text NOT NULL DEFAULT '',
  outcome text NOT NULL DEFAULT '',
  cancel_reason text NOT NULL DEFAULT '',
  content_hash text NOT NULL,
  version integer NOT NULL CONSTRAINT handoffs_version_check CHECK (version >= 1),
  created_at timestamptz(3) NOT NULL,
  updated_at timestamptz(3) NOT NULL,
  updated_by text NOT NULL
)`);
    await tx.query("CREATE INDEX handoffs_creator_idx ON handoffs (tenant, creator, id)");
    await tx.query("CREATE INDEX handoffs_recipient_idx ON handoffs (tenant, recipient_kind, recipient, id)");
  },
};
