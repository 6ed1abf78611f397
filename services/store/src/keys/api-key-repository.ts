import type { ApiKeyRecord, ApiKeyRepository, ApiKeyWrite } from "./api-keys.js";
import { currentRequestId, type AuditAction } from "../audit/audit.js";
import { createAuditStatements } from "../audit/audit-repository.js";
import { createSqlParams, type SqlDatabase, type SqlExecutor } from "../db/sql-database.js";
import { createUuidV7 } from "../model/ids.js";
import type { Scope } from "../model/principal.js";

interface ApiKeyRow {
  id: string;
  hint: string;
  tenant: string;
  subject: string;
  groups: string[];
  scopes: Scope[];
  description: string;
  expires_at: Date | null;
  created_at: Date;
  revoked_at: Date | null;
}

// Never key_hash: a stored hash does not leave the store.
const columns =
  "k.id, k.hint, k.tenant, k.subject, k.groups, k.scopes, k.description, k.expires_at, k.created_at, k.revoked_at";

function toRecord(row: ApiKeyRow): ApiKeyRecord {
  return {
    id: row.id,
    hint: row.hint,
    tenant: row.tenant,
    subject: row.subject,
    groups: row.groups,
    scopes: row.scopes,
    description: row.description,
    expiresAt: row.expires_at ?? undefined,
    createdAt: row.created_at,
    revokedAt: row.revoked_at ?? undefined,
  };
}

/** What a change found: the key, and whether it changed it (a second revocation does not). */
type KeyChange = { key: ApiKeyRecord; changed: boolean } | undefined;

/** Inserts a key; undefined when a key with its hash is stored already. */
async function insertKey(tx: SqlExecutor, key: ApiKeyWrite, keyHash: string): Promise<KeyChange> {
  const { rows } = await tx.query<ApiKeyRow>(
    `INSERT INTO api_keys AS k (id, key_hash, hint, tenant, subject, groups, scopes, description, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6::text[], $7::text[], $8, $9::timestamptz)
     ON CONFLICT (key_hash) DO NOTHING
     RETURNING ${columns}`,
    [
      createUuidV7(),
      keyHash,
      key.hint,
      key.tenant,
      key.subject,
      key.groups,
      key.scopes,
      key.description,
      key.expiresAt?.toISOString() ?? null,
    ],
  );
  return rows[0] === undefined ? undefined : { key: toRecord(rows[0]), changed: true };
}

/** Marks a key revoked, keeping the first revocation time (revoking twice changes nothing); undefined when there is none. */
async function revokeKey(tx: SqlExecutor, id: string): Promise<KeyChange> {
  // Locked first, so that of two revocations at once only the first finds the key active.
  const locked = await tx.query<{ active: boolean }>(
    "SELECT k.revoked_at IS NULL AS active FROM api_keys k WHERE k.id = $1 FOR UPDATE",
    [id],
  );
  if (locked.rows[0] === undefined) return undefined;
  const { rows } = await tx.query<ApiKeyRow>(
    `UPDATE api_keys AS k SET revoked_at = coalesce(k.revoked_at, now()) WHERE k.id = $1 RETURNING ${columns}`,
    [id],
  );
  return rows[0] === undefined ? undefined : { key: toRecord(rows[0]), changed: locked.rows[0].active };
}

/**
 * Runs `change` (an insert or a revocation) and, when it changed its key,
 * appends the audit record in the key's tenant in the same transaction:
 * who acted (`operator` for the CLI), the key's id, hint, subject and scopes.
 */
function audited(
  db: SqlDatabase,
  actor: string,
  action: AuditAction,
  change: (tx: SqlExecutor) => Promise<KeyChange>,
): Promise<ApiKeyRecord | undefined> {
  return db.transaction(async (tx) => {
    const found = await change(tx);
    if (found === undefined || !found.changed) return found?.key;
    const { key } = found;
    const audit = createAuditStatements(tx);
    audit.record(key.tenant, {
      actor,
      action,
      outcome: "ok",
      targetIds: [key.id],
      beforeHashes: [],
      afterHashes: [],
      details: { hint: key.hint, subject: key.subject, scopes: key.scopes },
    });
    await audit.flush(currentRequestId());
    return key;
  });
}

/** The API key repository over a migrated database. */
export function createApiKeyRepository(db: SqlDatabase): ApiKeyRepository {
  return {
    insert: (key, keyHash, actor) => audited(db, actor, "key.create", (tx) => insertKey(tx, key, keyHash)),
    revoke: (id, actor) => audited(db, actor, "key.revoke", (tx) => revokeKey(tx, id)),

    async list(filter) {
      const params = createSqlParams();
      const conditions: string[] = [];
      if (filter.tenant !== undefined) conditions.push(`k.tenant = ${params.add(filter.tenant)}`);
      if (!filter.includeRevoked) conditions.push("k.revoked_at IS NULL");
      const { rows } = await db.query<ApiKeyRow>(
        `SELECT ${columns} FROM api_keys k ${conditions.length === 0 ? "" : `WHERE ${conditions.join(" AND ")}`} ORDER BY k.created_at DESC, k.id DESC`,
        params.values,
      );
      return rows.map(toRecord);
    },

    async findByHint(hint) {
      const { rows } = await db.query<ApiKeyRow>(
        `SELECT ${columns} FROM api_keys k WHERE k.hint = $1 ORDER BY k.created_at DESC, k.id DESC`,
        [hint],
      );
      return rows.map(toRecord);
    },

    async findByHash(keyHash) {
      const { rows } = await db.query<ApiKeyRow>(`SELECT ${columns} FROM api_keys k WHERE k.key_hash = $1`, [keyHash]);
      const row = rows[0];
      return row === undefined ? undefined : toRecord(row);
    },
  };
}
