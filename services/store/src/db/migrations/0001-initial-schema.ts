import type { SqlExecutor } from "../sql-database.js";
import type { Migration, MigrationContext } from "./migration.js";

/**
 * Installs pgvector if the server has it. The attempt runs under a savepoint:
 * a server without the extension (or a role that may not create it) fails the
 * statement, and the savepoint keeps that failure from aborting the migration.
 */
async function tryCreateVectorExtension(tx: SqlExecutor, context: MigrationContext): Promise<boolean> {
  await tx.query("SAVEPOINT create_vector_extension");
  try {
    await tx.query("CREATE EXTENSION IF NOT EXISTS vector");
    await tx.query("RELEASE SAVEPOINT create_vector_extension");
    return true;
  } catch (error) {
    await tx.query("ROLLBACK TO SAVEPOINT create_vector_extension");
    context.logger.warn(
      { reason: (error as Error).message },
      "pgvector is not available: chunk vectors are stored as real[] and semantic search is exact (fine for small stores; install pgvector for ANN search at scale)",
    );
    return false;
  }
}

const searchVectorFunction = `
CREATE FUNCTION entry_search_vector(body text) RETURNS tsvector
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
BEGIN
  RETURN to_tsvector('english'::regconfig, body);
EXCEPTION WHEN program_limit_exceeded THEN
  -- A tsvector holds at most 1 MB of lexemes and positions; pathological text
  -- (hundreds of thousands of distinct words) exceeds it. 200,000 characters
  -- stay under the limit whatever they contain, so such an entry is indexed on
  -- that prefix instead of failing to store.
  RETURN to_tsvector('english'::regconfig, left(body, 200000));
END
$$`;

const entriesTable = `
CREATE TABLE entries (
  id uuid PRIMARY KEY,
  tenant text NOT NULL,
  thread_id text NOT NULL,
  source text NOT NULL CONSTRAINT entries_source_check CHECK (source IN ('user', 'agent')),
  owner text NOT NULL,
  visibility text NOT NULL DEFAULT 'private' CONSTRAINT entries_visibility_check CHECK (visibility IN ('private', 'shared', 'tenant')),
  text text NOT NULL,
  text_length integer NOT NULL CONSTRAINT entries_text_length_check CHECK (text_length > 0),
  preview text NOT NULL,
  content_hash text NOT NULL CONSTRAINT entries_content_hash_check CHECK (content_hash ~ '^[0-9a-f]{64}$'),
  metadata jsonb NOT NULL DEFAULT '{}' CONSTRAINT entries_metadata_check CHECK (jsonb_typeof(metadata) = 'object'),
  tags text[] NOT NULL DEFAULT '{}',
  summary text NOT NULL DEFAULT '',
  content_type text NOT NULL DEFAULT 'text' CONSTRAINT entries_content_type_check CHECK (content_type IN ('text', 'multimodal')),
  version integer NOT NULL DEFAULT 1 CONSTRAINT entries_version_check CHECK (version >= 1),
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  updated_at timestamptz(3) NOT NULL DEFAULT now(),
  search_vector tsvector GENERATED ALWAYS AS (entry_search_vector(text)) STORED
)`;

function chunksTable(vectorColumnType: string): string {
  return `
CREATE TABLE chunks (
  id uuid PRIMARY KEY,
  entry_id uuid NOT NULL REFERENCES entries (id) ON DELETE CASCADE,
  tenant text NOT NULL,
  ordinal integer NOT NULL CONSTRAINT chunks_ordinal_check CHECK (ordinal >= 0),
  start_offset integer NOT NULL,
  end_offset integer NOT NULL,
  embedding_model text NOT NULL,
  embedding ${vectorColumnType} NOT NULL,
  CONSTRAINT chunks_entry_ordinal_key UNIQUE (entry_id, ordinal),
  CONSTRAINT chunks_span_check CHECK (start_offset >= 0 AND start_offset < end_offset)
)`;
}

/**
 * The first schema: entries and everything written with them, and grants.
 *
 * Sized for a million entries per store on a laptop and far more on a server:
 * every index leads with tenant (nothing crosses tenants, so no query scans
 * another's rows); listings walk (tenant[, thread], created_at, id) backwards
 * and stop at the limit; id prefixes resolve as a range on the primary key;
 * listings read a stored preview instead of detoasting megabyte texts; image
 * bytes are stored uncompressed (they are compressed formats already).
 * Timestamps keep milliseconds so every value round-trips through a client.
 */
export const initialSchema: Migration = {
  version: 1,
  name: "initial schema",
  async up(tx, context) {
    const pgvector = await tryCreateVectorExtension(tx, context);
    await tx.query(searchVectorFunction);
    await tx.query(entriesTable);
    await tx.query("CREATE INDEX entries_thread_created_idx ON entries (tenant, thread_id, created_at DESC, id DESC)");
    await tx.query("CREATE INDEX entries_tenant_created_idx ON entries (tenant, created_at DESC, id DESC)");
    await tx.query("CREATE INDEX entries_owner_idx ON entries (tenant, owner)");
    await tx.query("CREATE INDEX entries_tags_idx ON entries USING gin (tags)");
    await tx.query("CREATE INDEX entries_metadata_idx ON entries USING gin (metadata jsonb_path_ops)");
    await tx.query("CREATE INDEX entries_search_idx ON entries USING gin (search_vector)");

    await tx.query(`
CREATE TABLE entry_images (
  entry_id uuid NOT NULL REFERENCES entries (id) ON DELETE CASCADE,
  ordinal integer NOT NULL CONSTRAINT entry_images_ordinal_check CHECK (ordinal >= 0),
  mime_type text NOT NULL,
  byte_size integer NOT NULL,
  sha256 text NOT NULL,
  data bytea NOT NULL,
  PRIMARY KEY (entry_id, ordinal)
)`);
    await tx.query("ALTER TABLE entry_images ALTER COLUMN data SET STORAGE EXTERNAL");

    // Untyped vector: models of different dimensions coexist; per-model HNSW indexes cast to a fixed dimension.
    await tx.query(chunksTable(pgvector ? "vector" : "real[]"));
    await tx.query("CREATE INDEX chunks_tenant_model_idx ON chunks (tenant, embedding_model)");

    await tx.query(`
CREATE TABLE node_summaries (
  entry_id uuid NOT NULL REFERENCES entries (id) ON DELETE CASCADE,
  node_id text NOT NULL,
  ordinal integer NOT NULL,
  heading text NOT NULL,
  level integer NOT NULL,
  start_offset integer NOT NULL,
  end_offset integer NOT NULL,
  summary text NOT NULL,
  PRIMARY KEY (entry_id, node_id),
  CONSTRAINT node_summaries_span_check CHECK (start_offset >= 0 AND start_offset <= end_offset)
)`);

    await tx.query(`
CREATE TABLE grants (
  id uuid PRIMARY KEY,
  tenant text NOT NULL,
  grantor text NOT NULL,
  entry_id uuid REFERENCES entries (id) ON DELETE CASCADE,
  thread_id text,
  grantee_kind text NOT NULL CONSTRAINT grants_grantee_kind_check CHECK (grantee_kind IN ('subject', 'group')),
  grantee text NOT NULL,
  permission text NOT NULL CONSTRAINT grants_permission_check CHECK (permission IN ('read', 'write')),
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  CONSTRAINT grants_target_check CHECK ((entry_id IS NULL) <> (thread_id IS NULL))
)`);
    // Shaped for the access predicate's two EXISTS probes (one per grant target); unique so a grant is never doubled.
    await tx.query(
      "CREATE UNIQUE INDEX grants_entry_key ON grants (entry_id, grantee_kind, grantee, permission) WHERE entry_id IS NOT NULL",
    );
    await tx.query(
      "CREATE UNIQUE INDEX grants_thread_key ON grants (tenant, thread_id, grantor, grantee_kind, grantee, permission) WHERE thread_id IS NOT NULL",
    );
  },
};
