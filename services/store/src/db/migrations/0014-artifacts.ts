import type { Migration } from "./migration.js";

/**
 * Artifacts: files of up to 50 MB addressed by their SHA-256, stored once per
 * tenant however many references point at them.
 *
 * - `artifact_blobs`: one row per (tenant, sha256): the bytes' size. Bytes are
 *   never shared across tenants, so one tenant can learn nothing of another's
 *   files from deduplication.
 * - `artifact_chunks`: the bytes in 256 KiB `bytea` chunks. A range read
 *   fetches only the chunks it overlaps, and no row comes near the 1 GB
 *   value limit or holds tens of megabytes in one driver buffer. Storage is
 *   EXTERNAL: files are mostly compressed already, and uncompressed TOAST
 *   lets PostgreSQL slice a value without decompressing it whole.
 * - `artifacts`: the references, one per (tenant, owner, namespace, sha256),
 *   with the media type, filename and visibility of that reference. These
 *   rows are what the access predicate judges (the namespace plays the
 *   thread's part for grants, as memories' namespaces do). A delete removes
 *   a reference; the blob and its chunks go in the same transaction when no
 *   reference to them remains.
 * - `artifact_uploads` and `artifact_upload_parts`: chunked uploads in
 *   progress, each part stored at its byte offset until the commit verifies
 *   the whole against the declared size and hash and moves it into chunks.
 */
export const artifacts: Migration = {
  version: 14,
  name: "artifacts",
  async up(tx) {
    await tx.query(`
CREATE TABLE artifact_blobs (
  tenant text NOT NULL,
  sha256 text NOT NULL CONSTRAINT artifact_blobs_sha256_check CHECK (sha256 ~ '^[0-9a-f]{64}$'),
  size bigint NOT NULL CONSTRAINT artifact_blobs_size_check CHECK (size >= 0),
  created_at timestamptz(3) NOT NULL,
  PRIMARY KEY (tenant, sha256)
)`);
    await tx.query(`
CREATE TABLE artifact_chunks (
  tenant text NOT NULL,
  sha256 text NOT NULL,
  ordinal integer NOT NULL CONSTRAINT artifact_chunks_ordinal_check CHECK (ordinal >= 0),
  data bytea NOT NULL,
  PRIMARY KEY (tenant, sha256, ordinal),
  FOREIGN KEY (tenant, sha256) REFERENCES artifact_blobs (tenant, sha256) ON DELETE CASCADE
)`);
    await tx.query("ALTER TABLE artifact_chunks ALTER COLUMN data SET STORAGE EXTERNAL");
    await tx.query(`
CREATE TABLE artifacts (
  id uuid PRIMARY KEY,
  tenant text NOT NULL,
  owner text NOT NULL,
  namespace text NOT NULL,
  sha256 text NOT NULL,
  size bigint NOT NULL,
  media_type text NOT NULL,
  filename text NOT NULL,
  visibility text NOT NULL CONSTRAINT artifacts_visibility_check CHECK (visibility IN ('private', 'shared', 'tenant')),
  created_at timestamptz(3) NOT NULL,
  updated_at timestamptz(3) NOT NULL,
  CONSTRAINT artifacts_reference_key UNIQUE (tenant, owner, namespace, sha256),
  FOREIGN KEY (tenant, sha256) REFERENCES artifact_blobs (tenant, sha256)
)`);
    await tx.query("CREATE INDEX artifacts_sha256_idx ON artifacts (tenant, sha256)");
    await tx.query("CREATE INDEX artifacts_namespace_idx ON artifacts (tenant, namespace, id)");
    await tx.query("CREATE INDEX artifacts_owner_idx ON artifacts (tenant, owner, id)");
    await tx.query(`
CREATE TABLE artifact_uploads (
  id uuid PRIMARY KEY,
  tenant text NOT NULL,
  owner text NOT NULL,
  namespace text NOT NULL,
  visibility text NOT NULL,
  sha256 text NOT NULL,
  size bigint NOT NULL,
  media_type text NOT NULL,
  filename text NOT NULL,
  received bigint NOT NULL DEFAULT 0 CONSTRAINT artifact_uploads_received_check CHECK (received >= 0 AND received <= size),
  created_at timestamptz(3) NOT NULL,
  expires_at timestamptz(3) NOT NULL
)`);
    await tx.query("CREATE INDEX artifact_uploads_expiry_idx ON artifact_uploads (expires_at)");
    await tx.query(`
CREATE TABLE artifact_upload_parts (
  upload_id uuid NOT NULL REFERENCES artifact_uploads (id) ON DELETE CASCADE,
  byte_offset bigint NOT NULL,
  data bytea NOT NULL,
  PRIMARY KEY (upload_id, byte_offset)
)`);
    await tx.query("ALTER TABLE artifact_upload_parts ALTER COLUMN data SET STORAGE EXTERNAL");
  },
};
