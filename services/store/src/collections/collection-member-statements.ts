/**
 * The statements on a collection's members inside a collection write
 * transaction: their order, who may see them, adding and removing them,
 * and opening the owner's new members when the collection is shared.
 */
import { createSqlParams, type SqlExecutor } from "../db/sql-database.js";
import { memoryMirrorRefused } from "../entries/memory-mirror.js";
import { accessPredicate } from "../filters/access-predicate.js";
import { trustFilter } from "../filters/trust-filter.js";
import type { JsonObject } from "../model/entry-model.js";
import type { Principal } from "../model/principal.js";

/** The member statements of one collection write transaction (the collection's row lock is already held). */
export interface CollectionMemberStatements {
  /** Every member, in order. */
  memberOrder(id: string): Promise<string[]>;
  /** The members the caller may see (trust filter included), in order. */
  visibleMemberOrder(principal: Principal, id: string): Promise<string[]>;
  /** The owners and visibilities of entries (ids the caller may see, already resolved). */
  entryOwners(
    principal: Principal,
    ids: readonly string[],
  ): Promise<Map<string, { owner: string; visibility: string }>>;
  /**
   * Locks the entries among `ids` that still exist (FOR SHARE, in id order) and returns them, so none is deleted
   * before the transaction ends; one deleted meanwhile is missing. Refuses a memory's mirror entry
   * (PERMISSION_DENIED naming the memory): a collection's grants would open it beyond the memory's readers.
   */
  lockEntries(ids: readonly string[]): Promise<Set<string>>;
  insertMembers(principal: Principal, id: string, entryIds: readonly string[]): Promise<void>;
  /** Gives the members their places: `orderedIds` is every member, in the new order. */
  writeOrder(id: string, orderedIds: readonly string[]): Promise<void>;
  /** Removes the members among `entryIds`; returns those removed. */
  removeMembers(id: string, entryIds: readonly string[]): Promise<string[]>;
  /** Whether anyone holds a grant on the collection. */
  isShared(id: string): Promise<boolean>;
  /** Makes `owner`'s private entries among `entryIds` shared (locked in id order); returns those that changed. */
  makeShared(principal: Principal, owner: string, entryIds: readonly string[]): Promise<string[]>;
}

/** Makes `owner`'s private entries among `entryIds` shared (locked in id order); returns those that changed. */
async function makeOwnerEntriesShared(
  tx: SqlExecutor,
  principal: Principal,
  owner: string,
  entryIds: readonly string[],
): Promise<string[]> {
  if (entryIds.length === 0) return [];
  const { rows: locked } = await tx.query<{ id: string }>(
    `SELECT e.id FROM entries e WHERE e.id = ANY($1::uuid[]) AND e.tenant = $2 AND e.owner = $3 AND e.visibility = 'private'
         ORDER BY e.id FOR UPDATE`,
    [entryIds, principal.tenant, owner],
  );
  if (locked.length === 0) return [];
  const { rows } = await tx.query<{ id: string }>(
    "UPDATE entries e SET visibility = 'shared' WHERE e.id = ANY($1::uuid[]) AND e.visibility = 'private' RETURNING e.id",
    [locked.map((row) => row.id)],
  );
  return rows.map((row) => row.id).sort();
}

/** The member statements over the transaction `tx`. */
export function createCollectionMemberStatements(tx: SqlExecutor): CollectionMemberStatements {
  return {
    async memberOrder(id) {
      const { rows } = await tx.query<{ entry_id: string }>(
        "SELECT m.entry_id FROM collection_members m WHERE m.collection_id = $1 ORDER BY m.position, m.entry_id",
        [id],
      );
      return rows.map((row) => row.entry_id);
    },

    async visibleMemberOrder(principal, id) {
      const params = createSqlParams();
      const { rows } = await tx.query<{ entry_id: string }>(
        `SELECT m.entry_id FROM collection_members m JOIN entries e ON e.id = m.entry_id
         WHERE m.collection_id = ${params.add(id)}::uuid AND ${accessPredicate(principal, "e", params)} AND ${trustFilter("e", false)}
         ORDER BY m.position, m.entry_id`,
        params.values,
      );
      return rows.map((row) => row.entry_id);
    },

    async entryOwners(principal, ids) {
      const params = createSqlParams();
      const { rows } = await tx.query<{ id: string; owner: string; visibility: string }>(
        `SELECT e.id, e.owner, e.visibility FROM entries e WHERE e.id = ANY(${params.add(ids)}::uuid[]) AND ${accessPredicate(principal, "e", params)}`,
        params.values,
      );
      return new Map(rows.map((row) => [row.id, { owner: row.owner, visibility: row.visibility }]));
    },

    async lockEntries(ids) {
      const { rows } = await tx.query<{ id: string; memory_id: string | null; metadata: JsonObject }>(
        "SELECT e.id, e.memory_id, e.metadata FROM entries e WHERE e.id = ANY($1::uuid[]) ORDER BY e.id FOR SHARE",
        [ids],
      );
      // A collection's grants would open a memory's mirror beyond the memory's own readers: mirrors are no members.
      const mirror = rows.find((row) => row.memory_id !== null);
      if (mirror !== undefined) throw memoryMirrorRefused(mirror.id, mirror.metadata);
      return new Set(rows.map((row) => row.id));
    },

    async insertMembers(principal, id, entryIds) {
      // Placed at 0 here; writeOrder gives every member its place in the same transaction.
      await tx.query(
        `INSERT INTO collection_members (collection_id, entry_id, position, added_by, added_at)
         SELECT $1, w.entry_id, 0, $2, now() FROM unnest($3::uuid[]) AS w (entry_id)`,
        [id, principal.subject, entryIds],
      );
    },

    async writeOrder(id, orderedIds) {
      await tx.query(
        `UPDATE collection_members m SET position = w.position
         FROM unnest($2::uuid[]) WITH ORDINALITY AS w (entry_id, position)
         WHERE m.collection_id = $1 AND m.entry_id = w.entry_id AND m.position <> w.position`,
        [id, orderedIds],
      );
    },

    async removeMembers(id, entryIds) {
      const { rows } = await tx.query<{ entry_id: string }>(
        "DELETE FROM collection_members m WHERE m.collection_id = $1 AND m.entry_id = ANY($2::uuid[]) RETURNING m.entry_id",
        [id, entryIds],
      );
      const removed = new Set(rows.map((row) => row.entry_id));
      return entryIds.filter((entryId) => removed.has(entryId));
    },

    async isShared(id) {
      const { rows } = await tx.query("SELECT 1 FROM grants g WHERE g.collection_id = $1 LIMIT 1", [id]);
      return rows.length > 0;
    },

    makeShared: (principal, owner, entryIds) => makeOwnerEntriesShared(tx, principal, owner, entryIds),
  };
}
