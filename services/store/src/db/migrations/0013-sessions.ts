import type { Migration } from "./migration.js";

/**
 * Session logs: what an agent did in one working session, as an ordered
 * list of events.
 *
 * - `sessions`: one row per session. `owner`, `tenant`, `namespace` (which
 *   plays the thread's part for grants, as memories' namespaces do) decide
 *   who may see it. `last_seq` is the sequence number of its newest event:
 *   an append locks the row, numbers its events from `last_seq + 1` and
 *   moves `last_seq` in the same transaction, so the numbers are assigned in
 *   the commit and a rolled-back append leaves no gap.
 * - `session_events`: the events, keyed by (session, seq). An event sent
 *   with an idempotency key is stored once per session: the partial unique
 *   index finds the first one when the key comes again.
 */
export const sessions: Migration = {
  version: 13,
  name: "session logs",
  async up(tx) {
    await tx.query(`
CREATE TABLE sessions (
  id uuid PRIMARY KEY,
  tenant text NOT NULL,
  owner text NOT NULL,
  namespace text NOT NULL,
  thread text NOT NULL,
  surface text NOT NULL,
  agent text NOT NULL,
  status text NOT NULL CONSTRAINT sessions_status_check CHECK (status IN ('open', 'ended')),
  summary text NOT NULL DEFAULT '',
  last_seq integer NOT NULL DEFAULT 0 CONSTRAINT sessions_last_seq_check CHECK (last_seq >= 0),
  started_at timestamptz(3) NOT NULL,
  updated_at timestamptz(3) NOT NULL,
  ended_at timestamptz(3)
)`);
    await tx.query("CREATE INDEX sessions_owner_idx ON sessions (tenant, owner, id)");
    await tx.query("CREATE INDEX sessions_namespace_idx ON sessions (tenant, namespace, thread, id)");

    await tx.query(`
CREATE TABLE session_events (
  session_id uuid NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  seq integer NOT NULL CONSTRAINT session_events_seq_check CHECK (seq >= 1),
  tenant text NOT NULL,
  kind text NOT NULL,
  payload text NOT NULL,
  payload_hash text NOT NULL,
  idempotency_key text,
  written_by text NOT NULL,
  written_at timestamptz(3) NOT NULL,
  PRIMARY KEY (session_id, seq)
)`);
    await tx.query(
      "CREATE UNIQUE INDEX session_events_key_idx ON session_events (session_id, idempotency_key) WHERE idempotency_key IS NOT NULL",
    );
  },
};
