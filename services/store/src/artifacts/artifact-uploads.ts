/**
 * The SQL of resumable artifact uploads: an upload's row and its parts, a
 * part appended at its offset, the parts hashed (and stored as the blob's
 * chunks) inside the database at commit, and the expiry of uploads left
 * unfinished. An upload is its starter's alone. Part of the artifact write
 * scope (artifact-repository.ts).
 */
import type { SqlExecutor } from "../db/sql-database.js";
import type { Visibility } from "../model/entry-values.js";
import { createUuidV7 } from "../model/ids.js";
import type { Principal } from "../model/principal.js";
import { artifactLimits, type ArtifactTarget, type UploadRecord } from "./artifact-model.js";

const artifactChunkBytes = artifactLimits.chunkBytes;

interface UploadRow {
  id: string;
  sha256: string;
  size: string | number;
  media_type: string;
  filename: string;
  namespace: string;
  visibility: Visibility;
  received: string | number;
  expires_at: Date;
}

const uploadColumns =
  "u.id, u.sha256, u.size, u.media_type, u.filename, u.namespace, u.visibility, u.received, u.expires_at";

function toUpload(row: UploadRow): UploadRecord {
  return {
    id: row.id,
    sha256: row.sha256,
    size: Number(row.size),
    mediaType: row.media_type,
    filename: row.filename,
    namespace: row.namespace,
    visibility: row.visibility,
    received: Number(row.received),
    expiresAt: row.expires_at,
  };
}

/** The statements of an upload inside one artifact write transaction. */
export interface ArtifactUploadStatements {
  insertUpload(
    principal: Principal,
    target: ArtifactTarget,
    sha256: string,
    size: number,
    expiresAt: Date,
  ): Promise<UploadRecord>;
  /** The caller's own upload, locked, unless it has expired. */
  lockUpload(principal: Principal, id: string, now: Date): Promise<UploadRecord | undefined>;
  /** The bytes stored at exactly `offset`, if a part starts there. */
  partAt(uploadId: string, offset: number): Promise<Uint8Array | undefined>;
  /**
   * Hashes an upload's parts in offset order and, when they hash to `sha256`
   * and `writeChunks` is set, stores them as the blob's chunks, all inside the
   * database: the bytes never travel back to the store process. Answers the
   * parts' SHA-256 (nothing is written when it is not `sha256`).
   */
  commitParts(uploadId: string, tenant: string, sha256: string, writeChunks: boolean): Promise<string>;
  appendPart(uploadId: string, offset: number, data: Uint8Array): Promise<UploadRecord>;
  deleteUpload(id: string): Promise<void>;
  /** The caller's uploads that have not expired. */
  countUploads(principal: Principal, now: Date): Promise<number>;
  /** Deletes up to `limit` uploads of any tenant that expired before `now`. */
  deleteExpiredUploads(now: Date, limit: number): Promise<number>;
}

/** Inserts the caller's new upload of a file declared by its hash and size, expiring at `expiresAt`. */
async function insertUpload(
  tx: SqlExecutor,
  principal: Principal,
  target: ArtifactTarget,
  sha256: string,
  size: number,
  expiresAt: Date,
): Promise<UploadRecord> {
  const { rows } = await tx.query<UploadRow>(
    `INSERT INTO artifact_uploads AS u (id, tenant, owner, namespace, visibility, sha256, size, media_type, filename, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, now(), $10) RETURNING ${uploadColumns}`,
    [
      createUuidV7(),
      principal.tenant,
      principal.subject,
      target.namespace,
      target.visibility,
      sha256,
      size,
      target.mediaType,
      target.filename,
      expiresAt,
    ],
  );
  return toUpload(rows[0]!);
}

/** Hashes an upload's parts and, when `writeChunks` and the hash is `sha256`, stores them as the blob's chunks. */
async function commitParts(
  tx: SqlExecutor,
  uploadId: string,
  tenant: string,
  sha256: string,
  writeChunks: boolean,
): Promise<string> {
  // The parts are contiguous, so their concatenation in offset order is the file.
  const { rows } = await tx.query<{ sha256: string }>(
    `WITH whole AS MATERIALIZED (
           SELECT coalesce(string_agg(data, ''::bytea ORDER BY byte_offset), ''::bytea) AS data
           FROM artifact_upload_parts WHERE upload_id = $1),
         hashed AS (SELECT encode(sha256(whole.data), 'hex') AS sha256 FROM whole),
         -- A data-modifying WITH runs whether or not the final SELECT reads it.
         stored AS (
           INSERT INTO artifact_chunks (tenant, sha256, ordinal, data)
           SELECT $2, $3, g.n, substring(whole.data FROM g.n * $4 + 1 FOR $4)
           FROM whole, hashed, generate_series(0, (octet_length(whole.data) + $4 - 1) / $4 - 1) AS g (n)
           WHERE $5 AND hashed.sha256 = $3
           RETURNING 1)
         SELECT hashed.sha256 FROM hashed`,
    [uploadId, tenant, sha256, artifactChunkBytes, writeChunks],
  );
  return rows[0]!.sha256;
}

/** The upload statements over the transaction `tx`. */
export function createUploadStatements(tx: SqlExecutor): ArtifactUploadStatements {
  return {
    insertUpload: (principal, target, sha256, size, expiresAt) =>
      insertUpload(tx, principal, target, sha256, size, expiresAt),

    async lockUpload(principal, id, now) {
      // An upload is its starter's alone, a tenant admin's included: nobody else appends to or commits it.
      const { rows } = await tx.query<UploadRow>(
        `SELECT ${uploadColumns} FROM artifact_uploads u
         WHERE u.id = $1::uuid AND u.tenant = $2 AND u.owner = $3 AND u.expires_at > $4 FOR UPDATE`,
        [id, principal.tenant, principal.subject, now],
      );
      return rows[0] === undefined ? undefined : toUpload(rows[0]);
    },

    async partAt(uploadId, offset) {
      const { rows } = await tx.query<{ data: Uint8Array }>(
        "SELECT data FROM artifact_upload_parts WHERE upload_id = $1 AND byte_offset = $2",
        [uploadId, offset],
      );
      return rows[0]?.data;
    },

    commitParts: (uploadId, tenant, sha256, writeChunks) => commitParts(tx, uploadId, tenant, sha256, writeChunks),

    async appendPart(uploadId, offset, data) {
      await tx.query("INSERT INTO artifact_upload_parts (upload_id, byte_offset, data) VALUES ($1, $2, $3)", [
        uploadId,
        offset,
        data,
      ]);
      const { rows } = await tx.query<UploadRow>(
        `UPDATE artifact_uploads AS u SET received = $2 WHERE u.id = $1 RETURNING ${uploadColumns}`,
        [uploadId, offset + data.byteLength],
      );
      return toUpload(rows[0]!);
    },

    async deleteUpload(id) {
      await tx.query("DELETE FROM artifact_uploads WHERE id = $1", [id]);
    },

    async countUploads(principal, now) {
      const { rows } = await tx.query<{ count: number }>(
        "SELECT count(*)::integer AS count FROM artifact_uploads WHERE tenant = $1 AND owner = $2 AND expires_at > $3",
        [principal.tenant, principal.subject, now],
      );
      return rows[0]!.count;
    },

    async deleteExpiredUploads(now, limit) {
      const { rowCount } = await tx.query(
        `DELETE FROM artifact_uploads WHERE id IN
           (SELECT id FROM artifact_uploads WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
        [now, limit],
      );
      return rowCount;
    },
  };
}
