/**
 * Collections in SQL. Every statement that reads a collection composes the
 * collection predicate, and every statement that reads a member composes
 * the access predicate over the member's entry row, so a member the caller
 * cannot see is never listed nor counted.
 */
import { currentRequestId } from "../audit/audit.js";
import { createAuditStatements, type AuditStatements } from "../audit/audit-repository.js";
import { createSqlParams, type SqlDatabase, type SqlExecutor, type SqlParams } from "../db/sql-database.js";
import { memoryMirrorRefused } from "../entries/memory-mirror.js";
import { resolveIds, entryColumns, toStoredEntry, type EntryRow } from "../entries/entry-rows.js";
import { linkedArtifactsOf } from "../entries/listed-artifacts.js";
import { accessPredicate, collectionPredicate } from "../filters/access-predicate.js";
import { trustFilter } from "../filters/trust-filter.js";
import { createIdempotencyStatements, findRecordedCall } from "../idempotency/idempotency-repository.js";
import type { IdempotencyStatements, RecordedCall } from "../idempotency/idempotency.js";
import type { JsonObject } from "../model/entry-model.js";
import type { IdQuery } from "../model/id-query.js";
import { createUuidV7 } from "../model/ids.js";
import type { Principal } from "../model/principal.js";
import type { CollectionMember, CollectionRecord } from "./collection-model.js";

interface CollectionRow {
  id: string;
  name: string;
  description: string;
  owner: string;
  version: number;
  created_at: Date;
  updated_at: Date;
  member_count: number;
}

const collectionColumns = "c.id, c.name, c.description, c.owner, c.version, c.created_at, c.updated_at";

/** The count of `c`'s members the caller may see (and the trust filter lets through). */
function memberCount(principal: Principal, params: SqlParams, includeQuarantined: boolean): string {
  return `(SELECT count(*)::integer FROM collection_members m JOIN entries e ON e.id = m.entry_id
     WHERE m.collection_id = c.id AND ${accessPredicate(principal, "e", params)} AND ${trustFilter("e", includeQuarantined)}) AS member_count`;
}

function toRecord(row: CollectionRow): CollectionRecord {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    owner: row.owner,
    version: row.version,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    memberCount: row.member_count,
  };
}

/** A collection locked for a change, with whether the caller may change it. */
export interface LockedCollection extends CollectionRecord {
  writable: boolean;
}

/** The statements of one collection write transaction; the collection's row lock serialises changes to its members. */
export interface CollectionWriteScope {
  idempotency: IdempotencyStatements;
  audit: AuditStatements;
  /** Entry id queries resolved among the entries the caller may see (as `resolveAll` wants them). */
  resolveIds(principal: Principal, queries: readonly IdQuery[], maxMatches: number): Promise<string[][]>;
  /** The collection, locked until the transaction ends, if the caller may see it. */
  lock(principal: Principal, id: string): Promise<LockedCollection | undefined>;
  insert(principal: Principal, name: string, description: string): Promise<CollectionRecord>;
  /** The collection as the caller sees it now (after this transaction's changes). */
  read(principal: Principal, id: string): Promise<CollectionRecord>;
  /** Sets name and description and moves to the next version. */
  update(principal: Principal, id: string, name: string, description: string): Promise<void>;
  /**
   * Marks a change of members (updated_at). The version counts changes of
   * name and description only: a member change by anyone must not be
   * countable through it, since some members may be hidden from a reader.
   */
  touch(principal: Principal, id: string): Promise<void>;
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
  /** Deletes the collection to its tombstone with its memberships and grants; returns how many of each went. */
  markDeleted(principal: Principal, id: string): Promise<{ removedMembers: number; revokedGrants: number }>;
}

function createWriteScope(tx: SqlExecutor): CollectionWriteScope {
  const scope: CollectionWriteScope = {
    idempotency: createIdempotencyStatements(tx),
    audit: createAuditStatements(tx),

    resolveIds: (principal, queries, maxMatches) => resolveIds(tx, principal, queries, maxMatches),

    async lock(principal, id) {
      const params = createSqlParams();
      const writable = collectionPredicate(principal, "c", params, "write");
      const { rows } = await tx.query<CollectionRow & { writable: boolean }>(
        `SELECT ${collectionColumns}, 0 AS member_count, ${writable} AS writable FROM collections c
         WHERE c.id = ${params.add(id)}::uuid AND ${collectionPredicate(principal, "c", params)}
         FOR UPDATE OF c`,
        params.values,
      );
      const row = rows[0];
      return row === undefined ? undefined : { ...toRecord(row), writable: row.writable };
    },

    async insert(principal, name, description) {
      const id = createUuidV7();
      await tx.query(
        `INSERT INTO collections (id, tenant, owner, name, description, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, now(), now())`,
        [id, principal.tenant, principal.subject, name, description],
      );
      return scope.read(principal, id);
    },

    async read(principal, id) {
      const params = createSqlParams();
      const { rows } = await tx.query<CollectionRow>(
        `SELECT ${collectionColumns}, ${memberCount(principal, params, false)} FROM collections c WHERE c.id = ${params.add(id)}::uuid`,
        params.values,
      );
      return toRecord(rows[0]!);
    },

    async update(principal, id, name, description) {
      await tx.query(
        "UPDATE collections SET name = $2, description = $3, version = version + 1, updated_at = now() WHERE id = $1",
        [id, name, description],
      );
    },

    async touch(_principal, id) {
      await tx.query("UPDATE collections SET updated_at = now() WHERE id = $1", [id]);
    },

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

    async makeShared(principal, owner, entryIds) {
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
    },

    async markDeleted(principal, id) {
      const members = await tx.query("DELETE FROM collection_members WHERE collection_id = $1", [id]);
      const grants = await tx.query("DELETE FROM grants WHERE collection_id = $1", [id]);
      await tx.query(
        "UPDATE collections SET deleted_at = now(), deleted_by = $2, version = version + 1, updated_at = now() WHERE id = $1",
        [id, principal.subject],
      );
      return { removedMembers: members.rowCount, revokedGrants: grants.rowCount };
    },
  };
  return scope;
}

interface MemberRow extends EntryRow {
  member_rank: string | number;
  added_at: Date;
  added_by: string;
}

/** Where a collections page resumes: after the collection at (name, id). */
export type CollectionCursor = [name: string, id: string];

/** The collection repository over a database. */
export function createCollectionRepository(db: SqlDatabase) {
  return {
    findCall: (principal: Principal, key: string, notBefore: Date): Promise<RecordedCall | undefined> =>
      findRecordedCall(db, principal, key, notBefore),

    transaction<T>(fn: (scope: CollectionWriteScope) => Promise<T>): Promise<T> {
      return db.transaction(async (tx) => {
        const scope = createWriteScope(tx);
        const value = await fn(scope);
        // Last, so the tenant's chain lock is held only for the append and the commit.
        await scope.audit.flush(currentRequestId());
        return value;
      });
    },

    /** The collection, if the caller may see it, counting the members the caller sees. */
    async get(principal: Principal, id: string, includeQuarantined: boolean): Promise<CollectionRecord | undefined> {
      const params = createSqlParams();
      const { rows } = await db.query<CollectionRow>(
        `SELECT ${collectionColumns}, ${memberCount(principal, params, includeQuarantined)} FROM collections c
         WHERE c.id = ${params.add(id)}::uuid AND ${collectionPredicate(principal, "c", params)}`,
        params.values,
      );
      return rows[0] === undefined ? undefined : toRecord(rows[0]);
    },

    /** One page of the collections the caller may see, by name ignoring case (the same on every database), then id; one more than `limit`. */
    async list(
      principal: Principal,
      owner: string,
      after: CollectionCursor | undefined,
      limit: number,
    ): Promise<CollectionRecord[]> {
      const params = createSqlParams();
      const conditions = [collectionPredicate(principal, "c", params)];
      if (owner !== "") conditions.push(`c.owner = ${params.add(owner)}`);
      if (after !== undefined)
        conditions.push(
          `(lower(c.name) COLLATE "C", c.id) > (lower(${params.add(after[0])}::text) COLLATE "C", ${params.add(after[1])}::uuid)`,
        );
      const { rows } = await db.query<CollectionRow>(
        `SELECT ${collectionColumns}, ${memberCount(principal, params, false)} FROM collections c
         WHERE ${conditions.join(" AND ")} ORDER BY lower(c.name) COLLATE "C", c.id LIMIT ${params.add(limit + 1)}`,
        params.values,
      );
      return rows.map(toRecord);
    },

    /**
     * One page of a collection's members the caller may see, in order, each
     * with its rank among them, from the one after rank `afterRank`; one more
     * than `limit`. Nothing when the caller may not see the collection. Pages
     * go by rank among the visible members (not by stored position, whose
     * gaps would tell of hidden members).
     */
    async members(
      principal: Principal,
      id: string,
      includeQuarantined: boolean,
      afterRank: number,
      limit: number,
    ): Promise<CollectionMember[]> {
      const params = createSqlParams();
      const collection = params.add(id);
      const { rows } = await db.query<MemberRow>(
        `WITH visible AS (
           SELECT m.entry_id, m.position, m.added_at, m.added_by, row_number() OVER (ORDER BY m.position, m.entry_id) AS rank
           FROM collection_members m JOIN entries e ON e.id = m.entry_id
           WHERE m.collection_id = ${collection}::uuid AND ${accessPredicate(principal, "e", params)} AND ${trustFilter("e", includeQuarantined)}
             AND EXISTS (SELECT 1 FROM collections c WHERE c.id = m.collection_id AND ${collectionPredicate(principal, "c", params)})
         )
         SELECT ${entryColumns}, NULL::text AS preview_source, v.rank AS member_rank, v.added_at, v.added_by
         FROM visible v JOIN entries e ON e.id = v.entry_id
         WHERE v.rank > ${params.add(afterRank)}
         ORDER BY v.rank LIMIT ${params.add(limit + 1)}`,
        params.values,
      );
      const links = await linkedArtifactsOf(
        db,
        principal,
        rows.map((row) => row.id),
      );
      return rows.map((row) => ({
        entry: { ...toStoredEntry(row, undefined), artifacts: links.get(row.id) ?? [] },
        position: Number(row.member_rank),
        addedAt: row.added_at,
        addedBy: row.added_by,
      }));
    },
  };
}

export type CollectionRepository = ReturnType<typeof createCollectionRepository>;
