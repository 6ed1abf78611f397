import type { Migration } from "./migration.js";

/**
 * Collections: named, ordered groups of entries.
 *
 * - `collections`: one row per collection, its owner's in its tenant, with a
 *   version for compare-and-set. A delete keeps the row as a tombstone
 *   (`deleted_at`, `deleted_by`) and removes its memberships and grants in
 *   the same transaction, so nothing reads through a deleted collection.
 * - `collection_members`: (collection, entry, position). An entry may sit in
 *   several collections; deleting the entry removes its memberships. The
 *   position is a sort key the owner sets (shown as a rank, never raw).
 * - `grants.collection_id`: a grant is on exactly one of an entry, a thread
 *   or a collection. A read grant on a collection opens the member entries of
 *   the collection's owner (the access predicate's third probe, served by
 *   `collection_members_entry_idx` and `grants_collection_key`).
 */
export const collections: Migration = {
  version: 18,
  name: "collections",
  async up(tx) {
    await tx.query(`
CREATE TABLE collections (
  id uuid PRIMARY KEY,
  tenant text NOT NULL,
  owner text NOT NULL,
  name text NOT NULL,
  description text NOT NULL DEFAULT '',
  version integer NOT NULL DEFAULT 1 CONSTRAINT collections_version_check CHECK (version >= 1),
  created_at timestamptz(3) NOT NULL,
  updated_at timestamptz(3) NOT NULL,
  deleted_at timestamptz(3),
  deleted_by text
)`);
    await tx.query("CREATE INDEX collections_name_idx ON collections (tenant, name, id) WHERE deleted_at IS NULL");
    await tx.query(`
CREATE TABLE collection_members (
  collection_id uuid NOT NULL REFERENCES collections (id) ON DELETE CASCADE,
  entry_id uuid NOT NULL REFERENCES entries (id) ON DELETE CASCADE,
  position bigint NOT NULL,
  added_by text NOT NULL,
  added_at timestamptz(3) NOT NULL,
  PRIMARY KEY (collection_id, entry_id)
)`);
    await tx.query("CREATE INDEX collection_members_position_idx ON collection_members (collection_id, position, entry_id)");
    await tx.query("CREATE INDEX collection_members_entry_idx ON collection_members (entry_id, collection_id)");
    await tx.query("ALTER TABLE grants ADD COLUMN collection_id uuid REFERENCES collections (id) ON DELETE CASCADE");
    await tx.query("ALTER TABLE grants DROP CONSTRAINT grants_target_check");
    await tx.query(
      "ALTER TABLE grants ADD CONSTRAINT grants_target_check CHECK (num_nonnulls(entry_id, thread_id, collection_id) = 1)",
    );
    await tx.query(
      "CREATE UNIQUE INDEX grants_collection_key ON grants (collection_id, grantee_kind, grantee, permission) WHERE collection_id IS NOT NULL",
    );
  },
};
