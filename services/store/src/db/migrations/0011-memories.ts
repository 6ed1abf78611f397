import type { Migration } from "./migration.js";

/**
 * Named memories: values a caller stores under `(namespace, key)` and reads
 * back by that name, each put kept as a revision.
 *
 * - `memories`: one row per owner, namespace and key, holding the current
 *   revision. The columns `id`, `tenant`, `owner` and `visibility` are the
 *   ones the access predicate judges; the namespace plays the thread's part
 *   (a thread grant on namespace N from a memory's owner reaches the owner's
 *   shared memories in N). A deleted memory keeps its row as the tombstone
 *   (`deleted_at` set, value emptied) so the next put continues its numbering.
 * - `memory_versions`: every revision, the current one included, written in
 *   the same transaction as the row; a delete is a revision of kind `delete`.
 *   `get_memory` by version or time and the history read it.
 */
export const memories: Migration = {
  version: 11,
  name: "named memories",
  async up(tx) {
    await tx.query(`
CREATE TABLE memories (
  id uuid PRIMARY KEY,
  tenant text NOT NULL,
  namespace text NOT NULL,
  key text NOT NULL,
  owner text NOT NULL,
  visibility text NOT NULL CONSTRAINT memories_visibility_check CHECK (visibility IN ('private', 'shared', 'tenant')),
  kind text NOT NULL,
  tags text[] NOT NULL,
  value_type text NOT NULL CONSTRAINT memories_value_type_check CHECK (value_type IN ('text', 'json')),
  value text NOT NULL,
  content_hash text NOT NULL,
  version integer NOT NULL CONSTRAINT memories_version_check CHECK (version >= 1),
  created_at timestamptz(3) NOT NULL,
  updated_at timestamptz(3) NOT NULL,
  updated_by text NOT NULL,
  deleted_at timestamptz(3),
  delete_reason text NOT NULL DEFAULT '',
  CONSTRAINT memories_name_key UNIQUE (tenant, namespace, key, owner)
)`);
    // Listings walk a namespace's keys in order; the unique index above leads with (tenant, namespace, key).
    await tx.query("CREATE INDEX memories_owner_idx ON memories (tenant, owner, namespace, key)");
    await tx.query("CREATE INDEX memories_tags_idx ON memories USING gin (tags)");

    await tx.query(`
CREATE TABLE memory_versions (
  memory_id uuid NOT NULL,
  version integer NOT NULL,
  tenant text NOT NULL,
  change text NOT NULL CONSTRAINT memory_versions_change_check CHECK (change IN ('put', 'delete')),
  visibility text NOT NULL,
  kind text NOT NULL,
  tags text[] NOT NULL,
  value_type text NOT NULL,
  value text NOT NULL,
  content_hash text NOT NULL,
  written_by text NOT NULL,
  written_at timestamptz(3) NOT NULL,
  reason text NOT NULL DEFAULT '',
  PRIMARY KEY (memory_id, version)
)`);
  },
};
