import type { Migration } from "./migration.js";

/**
 * Searchable memories: each live memory has one mirror entry (kind
 * `memory`), written in the memory's own transactions, which every search
 * mode finds under the entries' access predicate.
 *
 * - `entries.memory_id` names the memory an entry mirrors; NULL for every
 *   other entry. No foreign key: a memory row is never deleted (a delete
 *   leaves its tombstone), and its mirror is deleted with the delete.
 * - A unique partial index: a memory has at most one mirror, and its put
 *   and delete find it by memory id.
 * - Memories stored before this migration have no mirror until their next
 *   put writes one.
 */
export const memoryMirrors: Migration = {
  version: 20,
  name: "memory mirrors",
  async up(tx) {
    await tx.query("ALTER TABLE entries ADD COLUMN memory_id uuid");
    await tx.query("CREATE UNIQUE INDEX entries_memory_id_key ON entries (memory_id) WHERE memory_id IS NOT NULL");
  },
};
