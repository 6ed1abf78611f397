/**
 * Collections in SQL. Every statement that reads a collection composes the
 * collection predicate, and every statement that reads a member composes
 * the access predicate over the member's entry row, so a member the caller
 * cannot see is never listed nor counted.
 */
import { currentRequestId } from "../audit/audit.js";
import { createAuditStatements, type AuditStatements } from "../audit/audit-repository.js";
import { createSqlParams, type SqlDatabase, type SqlExecutor, type SqlParams } from "../db/sql-database.js";
import { resolveIds, entryColumns, toStoredEntry, type EntryRow } from "../entries/entry-rows.js";
import { linkedArtifactsOf } from "../entries/listed-artifacts.js";
import { accessPredicate, collectionPredicate } from "../filters/access-predicate.js";
import { trustFilter } from "../filters/trust-filter.js";
import { createIdempotencyStatements, findRecordedCall } from "../idempotency/idempotency-repository.js";
import type { IdempotencyStatements, RecordedCall } from "../idempotency/idempotency.js";
import type { IdQuery } from "../model/id-query.js";
import { createUuidV7 } from "../model/ids.js";
import type { Principal } from "../model/principal.js";
import type { CollectionMember, CollectionRecord } from "./collection-model.js";
import { createCollectionMemberStatements, type CollectionMemberStatements } from "./collection-member-statements.js";

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
export interface CollectionWriteScope extends CollectionMemberStatements {
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
  /** Deletes the collection to its tombstone with its memberships and grants; returns how many of each went. */
  markDeleted(principal: Principal, id: string): Promise<{ removedMembers: number; revokedGrants: number }>;
}

/** The statements on the collection's own row: locking, creating, reading, renaming, touching and deleting it. */
type CollectionRowStatements = Pick<
  CollectionWriteScope,
  "lock" | "insert" | "read" | "update" | "touch" | "markDeleted"
>;

/** The collection row statements over the transaction `tx`. */
function createCollectionRowStatements(tx: SqlExecutor): CollectionRowStatements {
  const statements: CollectionRowStatements = {
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
      return statements.read(principal, id);
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
  return statements;
}

/** The statements of one collection write transaction over `tx`. */
function createWriteScope(tx: SqlExecutor): CollectionWriteScope {
  return {
    idempotency: createIdempotencyStatements(tx),
    audit: createAuditStatements(tx),

    resolveIds: (principal, queries, maxMatches) => resolveIds(tx, principal, queries, maxMatches),
    ...createCollectionRowStatements(tx),
    ...createCollectionMemberStatements(tx),
  };
}

interface MemberRow extends EntryRow {
  member_rank: string | number;
  added_at: Date;
  added_by: string;
}

/** Where a collections page resumes: after the collection at (name, id). */
export type CollectionCursor = [name: string, id: string];

/**
 * One page of a collection's members the caller may see, in order, each
 * with its rank among them, from the one after rank `afterRank`; one more
 * than `limit` (see the repository's `members`).
 */
async function listMembers(
  db: SqlDatabase,
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
}

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
      return listMembers(db, principal, id, includeQuarantined, afterRank, limit);
    },
  };
}

export type CollectionRepository = ReturnType<typeof createCollectionRepository>;
