import type { Migration } from "./migration.js";

const appendOnlyFunction = `
CREATE FUNCTION audit_log_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_log is append-only: % is not allowed', TG_OP USING ERRCODE = 'insufficient_privilege';
END
$$`;

/**
 * Versions, tombstones, trust states and the audit log. Existing entries
 * keep their rows and become `unverified` (they were never screened); their
 * current version has no recorded writer, which reads as the owner.
 *
 * - `entries` gains its trust state, the screen's findings, the last review,
 *   who wrote the current version and how it came to be.
 * - `entry_versions`: every version an update, fold or restore replaced, and
 *   the last version of a deleted entry, written in the same transaction.
 *   No foreign key to `entries`: a deleted entry's versions outlive its row
 *   until `context-hub purge` erases them.
 * - `tombstones`: what is left of a deleted entry (no text), by id; looked up
 *   by (tenant, thread, content hash) when the same text is stored again.
 * - `audit_log`: per-tenant hash chains, append-only (a trigger refuses
 *   UPDATE, DELETE and TRUNCATE).
 */
export const historyTrustAudit: Migration = {
  version: 4,
  name: "history, tombstones, trust states and the audit log",
  async up(tx) {
    await tx.query(`
ALTER TABLE entries
  ADD COLUMN trust_state text NOT NULL DEFAULT 'unverified'
    CONSTRAINT entries_trust_state_check CHECK (trust_state IN ('unverified', 'verified', 'quarantined', 'rejected')),
  ADD COLUMN trust_reasons text[] NOT NULL DEFAULT '{}',
  ADD COLUMN reviewed_by text,
  ADD COLUMN reviewed_at timestamptz(3),
  ADD COLUMN review_note text,
  ADD COLUMN updated_by text,
  ADD COLUMN change_kind text NOT NULL DEFAULT 'create'
    CONSTRAINT entries_change_kind_check CHECK (change_kind IN ('create', 'update', 'fold', 'restore')),
  ADD COLUMN restored_from integer`);
    // The review queue walks (tenant, state) newest first.
    await tx.query("CREATE INDEX entries_trust_idx ON entries (tenant, trust_state, created_at DESC, id DESC)");

    await tx.query(`
CREATE TABLE entry_versions (
  entry_id uuid NOT NULL,
  version integer NOT NULL,
  tenant text NOT NULL,
  thread_id text NOT NULL,
  source text NOT NULL,
  owner text NOT NULL,
  visibility text NOT NULL,
  text text NOT NULL,
  content_hash text NOT NULL,
  metadata jsonb NOT NULL,
  tags text[] NOT NULL,
  summary text NOT NULL,
  trust_state text NOT NULL,
  written_by text NOT NULL,
  written_at timestamptz(3) NOT NULL,
  superseded_by text NOT NULL,
  superseded_at timestamptz(3) NOT NULL DEFAULT now(),
  change_kind text NOT NULL,
  restored_from integer,
  PRIMARY KEY (entry_id, version)
)`);

    await tx.query(`
CREATE TABLE tombstones (
  id uuid PRIMARY KEY,
  tenant text NOT NULL,
  thread_id text NOT NULL,
  source text NOT NULL,
  owner text NOT NULL,
  visibility text NOT NULL,
  content_hash text NOT NULL,
  created_at timestamptz(3) NOT NULL,
  deleted_by text NOT NULL,
  deleted_at timestamptz(3) NOT NULL DEFAULT now(),
  reason text NOT NULL DEFAULT '',
  history_purged_at timestamptz(3)
)`);
    await tx.query("CREATE INDEX tombstones_hash_idx ON tombstones (tenant, thread_id, content_hash)");
    await tx.query("CREATE INDEX tombstones_purge_idx ON tombstones (deleted_at) WHERE history_purged_at IS NULL");

    await tx.query(`
CREATE TABLE audit_log (
  tenant text NOT NULL,
  seq bigint NOT NULL CONSTRAINT audit_log_seq_check CHECK (seq >= 1),
  id uuid NOT NULL,
  at timestamptz(3) NOT NULL,
  actor text NOT NULL,
  action text NOT NULL,
  outcome text NOT NULL CONSTRAINT audit_log_outcome_check CHECK (outcome IN ('ok', 'denied')),
  target_ids text[] NOT NULL,
  before_hashes text[] NOT NULL,
  after_hashes text[] NOT NULL,
  request_id text NOT NULL,
  details jsonb NOT NULL,
  previous_hash text NOT NULL,
  hash text NOT NULL,
  PRIMARY KEY (tenant, seq)
)`);
    await tx.query("CREATE INDEX audit_log_targets_idx ON audit_log USING gin (target_ids)");
    await tx.query(appendOnlyFunction);
    await tx.query(
      "CREATE TRIGGER audit_log_no_change BEFORE UPDATE OR DELETE ON audit_log FOR EACH ROW EXECUTE FUNCTION audit_log_append_only()",
    );
    await tx.query(
      "CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only()",
    );
  },
};
