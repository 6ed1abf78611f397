import type { Migration } from "./migration.js";

/**
 * Idempotency keys and API keys. Adds tables only, so data written under
 * schema 1 carries over untouched.
 *
 * - `idempotency_keys`: one row per (tenant, subject, key), written in the
 *   same transaction as the mutation it records, with that mutation's
 *   serialised response for replays.
 * - `api_keys`: keys by the SHA-256 of their secret (unique); listings walk
 *   (tenant, created_at DESC, id DESC); a hint is not unique, so it is only
 *   indexed for revocation by hint.
 */
export const idempotencyAndApiKeys: Migration = {
  version: 2,
  name: "idempotency keys and API keys",
  async up(tx) {
    await tx.query(`
CREATE TABLE idempotency_keys (
  tenant text NOT NULL,
  subject text NOT NULL,
  key text NOT NULL CONSTRAINT idempotency_keys_key_check CHECK (char_length(key) BETWEEN 1 AND 200),
  rpc text NOT NULL,
  fingerprint text NOT NULL,
  response bytea NOT NULL,
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant, subject, key)
)`);

    await tx.query(`
CREATE TABLE api_keys (
  id uuid PRIMARY KEY,
  key_hash text NOT NULL CONSTRAINT api_keys_key_hash_check CHECK (key_hash ~ '^[0-9a-f]{64}$'),
  hint text NOT NULL,
  tenant text NOT NULL,
  subject text NOT NULL,
  groups text[] NOT NULL DEFAULT '{}',
  scopes text[] NOT NULL CONSTRAINT api_keys_scopes_check
    CHECK (cardinality(scopes) > 0 AND scopes <@ ARRAY['context:read', 'context:write', 'context:review', 'context:admin']::text[]),
  description text NOT NULL DEFAULT '',
  expires_at timestamptz(3),
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  revoked_at timestamptz(3),
  CONSTRAINT api_keys_key_hash_key UNIQUE (key_hash)
)`);
    await tx.query("CREATE INDEX api_keys_tenant_created_idx ON api_keys (tenant, created_at DESC, id DESC)");
    await tx.query("CREATE INDEX api_keys_created_idx ON api_keys (created_at DESC, id DESC)");
    await tx.query("CREATE INDEX api_keys_hint_idx ON api_keys (hint)");
  },
};
