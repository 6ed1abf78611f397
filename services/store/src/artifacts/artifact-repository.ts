/**
 * Artifacts in SQL. Every statement that reads a reference or its bytes
 * composes the artifact predicate over the `artifacts` row, so who may see a
 * file is decided by the database before any ORDER BY or LIMIT; the bytes
 * are only ever reached through a reference the caller may see. The
 * statements of resumable uploads, part of the same write scope, are in
 * artifact-uploads.ts.
 */
import { currentRequestId } from "../audit/audit.js";
import { createAuditStatements, type AuditStatements } from "../audit/audit-repository.js";
import { createSqlParams, type SqlDatabase, type SqlExecutor, type SqlParams } from "../db/sql-database.js";
import { accessPredicate } from "../filters/access-predicate.js";
import { handoffPredicate } from "../filters/handoff-predicate.js";
import { trustFilter } from "../filters/trust-filter.js";
import type { Visibility } from "../model/entry-values.js";
import { createUuidV7 } from "../model/ids.js";
import type { Principal } from "../model/principal.js";
import {
  type ArtifactRecord,
  type ArtifactRole,
  type ArtifactSelector,
  type ArtifactTarget,
} from "./artifact-model.js";
import { createUploadStatements, type ArtifactUploadStatements } from "./artifact-uploads.js";

/** The `artifacts` rows as the access predicate judges them: the namespace is the thread its grants name. */
const artifactRows = "(SELECT artifacts.*, artifacts.namespace AS thread_id FROM artifacts)";

/**
 * THE artifact predicate: the reference aliased `a` is visible to whoever the
 * access predicate lets read it (owner, tenant visibility, the owner's grants
 * on the namespace, tenant admins), to whoever may see a handoff its owner
 * created that links it (`{"type": "artifact", "ref": "<sha256>"}`), and to
 * whoever may see a live entry its owner wrote that links it
 * (`store_context { artifacts: [sha256] }`): the entry's access predicate and
 * the default trust filter, so a quarantined or rejected entry opens nothing
 * (not even to a reviewer), and a deleted entry has no links left. A link
 * reaches only its creator's own references, so linking a hash one merely
 * knows opens nothing. Read only: deleting still takes the write predicate.
 */
export function artifactPredicate(principal: Principal, params: SqlParams): string {
  const linked = `EXISTS (SELECT 1 FROM handoffs h WHERE h.tenant = a.tenant AND h.creator = a.owner
    AND h.links @> jsonb_build_array(jsonb_build_object('type', 'artifact', 'ref', a.sha256))
    AND ${handoffPredicate(principal, params)})`;
  const entryLinked = `EXISTS (SELECT 1 FROM entry_artifact_links l JOIN entries le ON le.id = l.entry_id
    WHERE l.tenant = a.tenant AND l.sha256 = a.sha256 AND le.tenant = a.tenant AND le.owner = a.owner
    AND ${accessPredicate(principal, "le", params, "read")} AND ${trustFilter("le", false)})`;
  return `(${accessPredicate(principal, "a", params, "read")} OR ${linked} OR ${entryLinked})`;
}

/**
 * A SQL boolean: `principal` may read a reference to the file whose digest is
 * the SQL expression `sha256` in the tenant `tenant` (a SQL expression), by
 * the artifact predicate. Its aliases are its own, so it composes into any
 * statement.
 */
export function readableArtifact(principal: Principal, params: SqlParams, tenant: string, sha256: string): string {
  return `EXISTS (SELECT 1 FROM ${artifactRows} a WHERE a.tenant = ${tenant} AND a.sha256 = ${sha256} AND ${artifactPredicate(principal, params)})`;
}

interface ArtifactRow {
  id: string;
  sha256: string;
  size: string | number;
  media_type: string;
  filename: string;
  owner: string;
  namespace: string;
  visibility: Visibility;
  created_at: Date;
  updated_at: Date;
}

const columns =
  "a.id, a.sha256, a.size, a.media_type, a.filename, a.owner, a.namespace, a.visibility, a.created_at, a.updated_at";

function toRecord(row: ArtifactRow): ArtifactRecord {
  return {
    id: row.id,
    sha256: row.sha256,
    size: Number(row.size),
    mediaType: row.media_type,
    filename: row.filename,
    owner: row.owner,
    namespace: row.namespace,
    visibility: row.visibility,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** A reference with whether the caller may delete it. */
export interface StoredArtifact extends ArtifactRecord {
  writable: boolean;
}

/** The statements of one artifact write transaction: the blob, its chunks and references; and uploads (artifact-uploads.ts). */
export interface ArtifactWriteScope extends ArtifactUploadStatements {
  audit: AuditStatements;
  /**
   * Makes sure the tenant's blob row for `sha256` exists and locks it until
   * the transaction ends, so a concurrent delete of its last reference waits;
   * true when this call created it (its chunks are then to be written).
   */
  claimBlob(tenant: string, sha256: string, size: number): Promise<boolean>;
  writeChunk(tenant: string, sha256: string, ordinal: number, data: Uint8Array): Promise<void>;
  /** Creates the caller's reference, or updates its description when it has one in that namespace. */
  upsertReference(principal: Principal, target: ArtifactTarget, sha256: string, size: number): Promise<ArtifactRecord>;
  /** The reference a delete names, locked, if the caller may see it. */
  lockReference(
    principal: Principal,
    sha256: string,
    namespace: string,
    owner: string,
  ): Promise<StoredArtifact | undefined>;
  /** Removes a reference; removes the bytes too when it was the last one. True when the bytes went. */
  removeReference(tenant: string, id: string, sha256: string): Promise<boolean>;
}

function createWriteScope(tx: SqlExecutor): ArtifactWriteScope {
  return {
    audit: createAuditStatements(tx),

    async claimBlob(tenant, sha256, size) {
      // DO UPDATE, not DO NOTHING: it locks an existing row, which a delete of the last reference locks too.
      const { rows } = await tx.query<{ inserted: boolean }>(
        `INSERT INTO artifact_blobs (tenant, sha256, size, created_at) VALUES ($1, $2, $3, now())
         ON CONFLICT (tenant, sha256) DO UPDATE SET size = artifact_blobs.size RETURNING (xmax = 0) AS inserted`,
        [tenant, sha256, size],
      );
      return rows[0]!.inserted;
    },

    async writeChunk(tenant, sha256, ordinal, data) {
      await tx.query("INSERT INTO artifact_chunks (tenant, sha256, ordinal, data) VALUES ($1, $2, $3, $4)", [
        tenant,
        sha256,
        ordinal,
        data,
      ]);
    },

    async upsertReference(principal, target, sha256, size) {
      const { rows } = await tx.query<ArtifactRow>(
        `INSERT INTO artifacts AS a (id, tenant, owner, namespace, sha256, size, media_type, filename, visibility, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, now(), now())
         ON CONFLICT (tenant, owner, namespace, sha256) DO UPDATE
           SET media_type = EXCLUDED.media_type, filename = EXCLUDED.filename, visibility = EXCLUDED.visibility, updated_at = now()
         RETURNING ${columns}`,
        [
          createUuidV7(),
          principal.tenant,
          principal.subject,
          target.namespace,
          sha256,
          size,
          target.mediaType,
          target.filename,
          target.visibility,
        ],
      );
      return toRecord(rows[0]!);
    },

    async lockReference(principal, sha256, namespace, owner) {
      const params = createSqlParams();
      const visible = artifactPredicate(principal, params);
      const writable = accessPredicate(principal, "a", params, "write");
      const { rows } = await tx.query<ArtifactRow & { writable: boolean }>(
        `SELECT ${columns}, ${writable} AS writable FROM ${artifactRows} a
         WHERE a.tenant = ${params.add(principal.tenant)} AND a.sha256 = ${params.add(sha256)}
           AND a.namespace = ${params.add(namespace)} AND a.owner = ${params.add(owner)} AND ${visible}`,
        params.values,
      );
      const row = rows[0];
      if (row === undefined) return undefined;
      // Locked by id once judged: FOR UPDATE cannot lock the derived table the predicate reads.
      // A concurrent delete that got there first leaves nothing to lock: the reference is gone.
      const locked = await tx.query("SELECT 1 FROM artifacts WHERE id = $1 FOR UPDATE", [row.id]);
      return locked.rows.length === 0 ? undefined : { ...toRecord(row), writable: row.writable };
    },

    async removeReference(tenant, id, sha256) {
      // The blob row first: a concurrent put of the same bytes holds it until its reference is committed.
      await tx.query("SELECT 1 FROM artifact_blobs WHERE tenant = $1 AND sha256 = $2 FOR UPDATE", [tenant, sha256]);
      await tx.query("DELETE FROM artifacts WHERE id = $1", [id]);
      const { rowCount } = await tx.query(
        `DELETE FROM artifact_blobs b WHERE b.tenant = $1 AND b.sha256 = $2
         AND NOT EXISTS (SELECT 1 FROM artifacts a WHERE a.tenant = b.tenant AND a.sha256 = b.sha256)`,
        [tenant, sha256],
      );
      return rowCount > 0;
    },

    ...createUploadStatements(tx),
  };
}

/** Which references a listing shows. */
export interface ArtifactListFilter {
  role: ArtifactRole;
  namespace: string;
  /** Rows before this id: listings run newest first. */
  before: string | undefined;
}

/** The reference a read resolves to: the caller's own first, then the newest it may see. */
async function resolve(
  executor: SqlExecutor,
  principal: Principal,
  selector: ArtifactSelector,
): Promise<ArtifactRecord | undefined> {
  const params = createSqlParams();
  const conditions = [
    `a.tenant = ${params.add(principal.tenant)}`,
    `a.sha256 = ${params.add(selector.sha256)}`,
    artifactPredicate(principal, params),
  ];
  if (selector.owner !== "") conditions.push(`a.owner = ${params.add(selector.owner)}`);
  if (selector.namespace !== "") conditions.push(`a.namespace = ${params.add(selector.namespace)}`);
  const { rows } = await executor.query<ArtifactRow>(
    `SELECT ${columns} FROM ${artifactRows} a WHERE ${conditions.join(" AND ")}
     ORDER BY (a.owner = ${params.add(principal.subject)}) DESC, a.id DESC LIMIT 1`,
    params.values,
  );
  return rows[0] === undefined ? undefined : toRecord(rows[0]);
}

/** The artifact repository over a migrated database. */
export function createArtifactRepository(db: SqlDatabase) {
  return {
    transaction<T>(fn: (scope: ArtifactWriteScope) => Promise<T>): Promise<T> {
      return db.transaction(async (tx) => {
        const scope = createWriteScope(tx);
        const value = await fn(scope);
        // Last, so the tenant's chain lock is held only for the append and the commit.
        await scope.audit.flush(currentRequestId());
        return value;
      });
    },

    /** The reference a selector names, if the caller may see one. */
    find: (principal: Principal, selector: ArtifactSelector) => resolve(db, principal, selector),

    /**
     * The reference and the chunks `first`..`last` of its bytes, read in one
     * snapshot so a delete between the two cannot cut the bytes short.
     */
    read(
      principal: Principal,
      selector: ArtifactSelector,
      chunkRange: (artifact: ArtifactRecord) => { first: number; last: number } | undefined,
    ): Promise<{ artifact: ArtifactRecord; chunks: { ordinal: number; data: Uint8Array }[] } | undefined> {
      return db.transaction(async (tx) => {
        await tx.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
        const artifact = await resolve(tx, principal, selector);
        if (artifact === undefined) return undefined;
        const range = chunkRange(artifact);
        if (range === undefined) return { artifact, chunks: [] };
        const { rows } = await tx.query<{ ordinal: number; data: Uint8Array }>(
          `SELECT ordinal, data FROM artifact_chunks WHERE tenant = $1 AND sha256 = $2 AND ordinal BETWEEN $3 AND $4
           ORDER BY ordinal`,
          [principal.tenant, artifact.sha256, range.first, range.last],
        );
        return { artifact, chunks: rows };
      });
    },

    /** One page of the references the caller can see, newest first; one more than `limit`. */
    async list(principal: Principal, filter: ArtifactListFilter, limit: number): Promise<ArtifactRecord[]> {
      const params = createSqlParams();
      const conditions = [
        filter.role === "mine"
          ? `(a.tenant = ${params.add(principal.tenant)} AND a.owner = ${params.add(principal.subject)})`
          : artifactPredicate(principal, params),
      ];
      if (filter.namespace !== "") conditions.push(`a.namespace = ${params.add(filter.namespace)}`);
      if (filter.before !== undefined) conditions.push(`a.id < ${params.add(filter.before)}::uuid`);
      const { rows } = await db.query<ArtifactRow>(
        `SELECT ${columns} FROM ${artifactRows} a WHERE ${conditions.join(" AND ")}
         ORDER BY a.id DESC LIMIT ${params.add(limit + 1)}`,
        params.values,
      );
      return rows.map(toRecord);
    },
  };
}

export type ArtifactRepository = ReturnType<typeof createArtifactRepository>;
