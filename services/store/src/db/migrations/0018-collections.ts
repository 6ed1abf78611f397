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
 * - The vector outbox learns both: a grant on a collection refreshes its
 *   owner's member entries in the index, and a membership added or removed
 *   refreshes its entry, so Qdrant's payload readers include collection
 *   grantees (the triggers on `collection_members` are installed with the
 *   others while the outbox is on, see vector-outbox.ts).
 */
/** Migration 6's grant trigger function, with the collection grant's entries: its grantor's members of the collection. */
const outboxGrants = `
CREATE OR REPLACE FUNCTION vector_outbox_grants() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF NOT vector_outbox_enabled() THEN
    RETURN NULL;
  END IF;
  IF TG_OP = 'INSERT' THEN
    INSERT INTO vector_outbox (op, target)
    SELECT 'entry_refresh', g.entry_id FROM vector_outbox_new_grants g WHERE g.entry_id IS NOT NULL
    UNION
    SELECT 'entry_refresh', e.id FROM vector_outbox_new_grants g
      JOIN entries e ON e.tenant = g.tenant AND e.thread_id = g.thread_id AND e.owner = g.grantor
    WHERE g.thread_id IS NOT NULL
    UNION
    SELECT 'entry_refresh', e.id FROM vector_outbox_new_grants g
      JOIN collection_members m ON m.collection_id = g.collection_id
      JOIN entries e ON e.id = m.entry_id AND e.tenant = g.tenant AND e.owner = g.grantor
    WHERE g.collection_id IS NOT NULL;
  ELSE
    INSERT INTO vector_outbox (op, target)
    SELECT 'entry_refresh', g.entry_id FROM vector_outbox_old_grants g WHERE g.entry_id IS NOT NULL
    UNION
    SELECT 'entry_refresh', e.id FROM vector_outbox_old_grants g
      JOIN entries e ON e.tenant = g.tenant AND e.thread_id = g.thread_id AND e.owner = g.grantor
    WHERE g.thread_id IS NOT NULL
    UNION
    SELECT 'entry_refresh', e.id FROM vector_outbox_old_grants g
      JOIN collection_members m ON m.collection_id = g.collection_id
      JOIN entries e ON e.id = m.entry_id AND e.tenant = g.tenant AND e.owner = g.grantor
    WHERE g.collection_id IS NOT NULL;
  END IF;
  RETURN NULL;
END
$$`;

/** A membership added or removed changes who may read its entry when the collection is shared: refresh the entry. */
const outboxMembers = `
CREATE FUNCTION vector_outbox_collection_members() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF NOT vector_outbox_enabled() THEN
    RETURN NULL;
  END IF;
  IF TG_OP = 'INSERT' THEN
    INSERT INTO vector_outbox (op, target)
    SELECT DISTINCT 'entry_refresh', m.entry_id FROM vector_outbox_new_members m
    WHERE EXISTS (SELECT 1 FROM grants g WHERE g.collection_id = m.collection_id);
  ELSE
    INSERT INTO vector_outbox (op, target)
    SELECT DISTINCT 'entry_refresh', m.entry_id FROM vector_outbox_old_members m
    WHERE EXISTS (SELECT 1 FROM chunks c WHERE c.entry_id = m.entry_id);
  END IF;
  RETURN NULL;
END
$$`;

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
    await tx.query(
      "CREATE INDEX collection_members_position_idx ON collection_members (collection_id, position, entry_id)",
    );
    await tx.query("CREATE INDEX collection_members_entry_idx ON collection_members (entry_id, collection_id)");
    await tx.query("ALTER TABLE grants ADD COLUMN collection_id uuid REFERENCES collections (id) ON DELETE CASCADE");
    await tx.query("ALTER TABLE grants DROP CONSTRAINT grants_target_check");
    await tx.query(
      "ALTER TABLE grants ADD CONSTRAINT grants_target_check CHECK (num_nonnulls(entry_id, thread_id, collection_id) = 1)",
    );
    await tx.query(
      "CREATE UNIQUE INDEX grants_collection_key ON grants (collection_id, grantee_kind, grantee, permission) WHERE collection_id IS NOT NULL",
    );
    await tx.query(outboxGrants);
    await tx.query(outboxMembers);
  },
};
