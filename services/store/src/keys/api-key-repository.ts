import type { ApiKeyRecord, ApiKeyRepository } from "./api-keys.js";
import { createSqlParams, type SqlExecutor } from "../db/sql-database.js";
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

/** The API key repository over a migrated database. */
export function createApiKeyRepository(db: SqlExecutor): ApiKeyRepository {
  return {
    async insert(key, keyHash) {
      const { rows } = await db.query<ApiKeyRow>(
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
      const row = rows[0];
      return row === undefined ? undefined : toRecord(row);
    },

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

    async revoke(id) {
      // coalesce keeps the first revocation time: revoking twice changes nothing.
      const { rows } = await db.query<ApiKeyRow>(
        `UPDATE api_keys AS k SET revoked_at = coalesce(k.revoked_at, now()) WHERE k.id = $1 RETURNING ${columns}`,
        [id],
      );
      const row = rows[0];
      return row === undefined ? undefined : toRecord(row);
    },

    async findByHash(keyHash) {
      const { rows } = await db.query<ApiKeyRow>(`SELECT ${columns} FROM api_keys k WHERE k.key_hash = $1`, [keyHash]);
      const row = rows[0];
      return row === undefined ? undefined : toRecord(row);
    },
  };
}
