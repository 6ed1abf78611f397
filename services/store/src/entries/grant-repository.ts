import { createSqlParams, type SqlExecutor, type SqlParams } from "../db/sql-database.js";
import { collectionPredicate } from "../filters/access-predicate.js";
import { createUuidV7 } from "../model/ids.js";
import type { LockedEntry } from "../model/entry-model.js";
import { isAdmin, type Principal } from "../model/principal.js";
import type {
  Grantee,
  GranteeKind,
  GrantListing,
  GrantRecord,
  GrantStatements,
  Permission,
} from "../model/sharing-model.js";

interface GrantRow {
  id: string;
  entry_id: string | null;
  thread_id: string | null;
  collection_id: string | null;
  grantee_kind: GranteeKind;
  grantee: string;
  permission: Permission;
  grantor: string;
  created_at: Date;
}

const grantColumns =
  "g.id, g.entry_id, g.thread_id, g.collection_id, g.grantee_kind, g.grantee, g.permission, g.grantor, g.created_at";

function toGrantRecord(row: GrantRow): GrantRecord {
  return {
    id: row.id,
    entryId: row.entry_id ?? undefined,
    threadId: row.thread_id ?? undefined,
    collectionId: row.collection_id ?? undefined,
    grantee: { kind: row.grantee_kind, name: row.grantee },
    permission: row.permission,
    grantor: row.grantor,
    createdAt: row.created_at,
  };
}

/** `AND (kind, name) matches one of the grantees`, or nothing when every grantee is meant. */
function granteeCondition(grantees: readonly Grantee[] | undefined, params: SqlParams): string {
  if (grantees === undefined) return "";
  const kinds = params.add(grantees.map((grantee) => grantee.kind));
  const names = params.add(grantees.map((grantee) => grantee.name));
  return ` AND (g.grantee_kind, g.grantee) IN (SELECT w.kind, w.name FROM unnest(${kinds}::text[], ${names}::text[]) AS w (kind, name))`;
}

/** The statements that turn private entries shared when a grant opens them. */
type SharingStatements = Pick<GrantStatements, "makeShared" | "makeThreadShared">;

/** Making entries shared, one by one or the caller's private ones in a thread. */
function createSharingStatements(tx: SqlExecutor): SharingStatements {
  /**
   * Entry ids in id order, locked: multi-row changes take their row locks in one global order so they cannot deadlock
   * with each other. A memory's mirror keeps its memory's visibility: a private memory stays private when its
   * namespace is shared.
   */
  const lockOwnPrivateInThread = async (principal: Principal, threadId: string) => {
    const { rows } = await tx.query<{ id: string }>(
      `SELECT e.id FROM entries e
       WHERE e.tenant = $1 AND e.thread_id = $2 AND e.owner = $3 AND e.visibility = 'private' AND e.memory_id IS NULL
       ORDER BY e.id FOR UPDATE`,
      [principal.tenant, threadId, principal.subject],
    );
    return rows.map((row) => row.id);
  };

  const statements: SharingStatements = {
    async makeShared(principal, ids) {
      if (ids.length === 0) return [];
      const { rows } = await tx.query<{ id: string }>(
        "UPDATE entries e SET visibility = 'shared' WHERE e.id = ANY($1::uuid[]) AND e.tenant = $2 AND e.visibility = 'private' RETURNING e.id",
        [ids, principal.tenant],
      );
      return rows.map((row) => row.id).sort();
    },

    async makeThreadShared(principal, threadId) {
      const ids = await lockOwnPrivateInThread(principal, threadId);
      return statements.makeShared(principal, ids);
    },
  };
  return statements;
}

/** Grants `permission` on each entry (by its owner) to each grantee; returns every requested grant. */
async function grantOnEntries(
  tx: SqlExecutor,
  principal: Principal,
  entries: readonly LockedEntry[],
  grantees: readonly Grantee[],
  permission: Permission,
): Promise<GrantRecord[]> {
  const pairs = entries.flatMap((entry) => grantees.map((grantee) => ({ entry, grantee })));
  const entryIds = pairs.map((pair) => pair.entry.id);
  const kinds = pairs.map((pair) => pair.grantee.kind);
  const names = pairs.map((pair) => pair.grantee.name);
  await tx.query(
    `INSERT INTO grants (id, tenant, grantor, entry_id, grantee_kind, grantee, permission)
         SELECT w.id, $1, w.grantor, w.entry_id, w.kind, w.name, $2
         FROM unnest($3::uuid[], $4::text[], $5::uuid[], $6::text[], $7::text[]) AS w (id, grantor, entry_id, kind, name)
         ON CONFLICT (entry_id, grantee_kind, grantee, permission) WHERE entry_id IS NOT NULL DO NOTHING`,
    [
      principal.tenant,
      permission,
      pairs.map(() => createUuidV7()),
      pairs.map((pair) => pair.entry.owner),
      entryIds,
      kinds,
      names,
    ],
  );
  const { rows } = await tx.query<GrantRow>(
    `SELECT ${grantColumns} FROM unnest($1::uuid[], $2::text[], $3::text[]) WITH ORDINALITY AS w (entry_id, kind, name, position)
         JOIN grants g ON g.entry_id = w.entry_id AND g.grantee_kind = w.kind AND g.grantee = w.name AND g.permission = $4 AND g.tenant = $5
         ORDER BY w.position`,
    [entryIds, kinds, names, permission, principal.tenant],
  );
  return rows.map(toGrantRecord);
}

/** The grants on entries and threads. */
type EntryGrantStatements = Pick<
  GrantStatements,
  "grantOnEntries" | "grantOnThread" | "revokeOnEntries" | "revokeOnThread"
>;

/** Granting and revoking on entries and on the caller's threads. */
function createEntryGrantStatements(tx: SqlExecutor): EntryGrantStatements {
  return {
    grantOnEntries: (principal, entries, grantees, permission) =>
      grantOnEntries(tx, principal, entries, grantees, permission),

    async grantOnThread(principal, threadId, grantees, permission) {
      const kinds = grantees.map((grantee) => grantee.kind);
      const names = grantees.map((grantee) => grantee.name);
      await tx.query(
        `INSERT INTO grants (id, tenant, grantor, thread_id, grantee_kind, grantee, permission)
         SELECT w.id, $1, $2, $3, w.kind, w.name, $4
         FROM unnest($5::uuid[], $6::text[], $7::text[]) AS w (id, kind, name)
         ON CONFLICT (tenant, thread_id, grantor, grantee_kind, grantee, permission) WHERE thread_id IS NOT NULL DO NOTHING`,
        [principal.tenant, principal.subject, threadId, permission, grantees.map(() => createUuidV7()), kinds, names],
      );
      const { rows } = await tx.query<GrantRow>(
        `SELECT ${grantColumns} FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS w (kind, name, position)
         JOIN grants g ON g.tenant = $3 AND g.thread_id = $4 AND g.grantor = $5 AND g.grantee_kind = w.kind AND g.grantee = w.name AND g.permission = $6
         ORDER BY w.position`,
        [kinds, names, principal.tenant, threadId, principal.subject, permission],
      );
      return rows.map(toGrantRecord);
    },

    async revokeOnEntries(principal, entryIds, grantees, permissions) {
      if (entryIds.length === 0) return 0;
      const params = createSqlParams();
      const { rowCount } = await tx.query(
        `DELETE FROM grants g
         WHERE g.tenant = ${params.add(principal.tenant)} AND g.entry_id = ANY(${params.add(entryIds)}::uuid[])
           AND g.permission = ANY(${params.add(permissions)}::text[])${granteeCondition(grantees, params)}`,
        params.values,
      );
      return rowCount;
    },

    async revokeOnThread(principal, threadId, grantees, permissions) {
      const params = createSqlParams();
      const { rowCount } = await tx.query(
        `DELETE FROM grants g
         WHERE g.tenant = ${params.add(principal.tenant)} AND g.thread_id = ${params.add(threadId)} AND g.grantor = ${params.add(principal.subject)}
           AND g.permission = ANY(${params.add(permissions)}::text[])${granteeCondition(grantees, params)}`,
        params.values,
      );
      return rowCount;
    },
  };
}

/** The grants on collections, with the collection lock they are taken under. */
type CollectionGrantStatements = Pick<
  GrantStatements,
  "lockCollection" | "makeCollectionShared" | "grantOnCollection" | "revokeOnCollection"
>;

/** Locking a collection, opening its owner's members, and granting and revoking on it. */
function createCollectionGrantStatements(
  tx: SqlExecutor,
  makeShared: GrantStatements["makeShared"],
): CollectionGrantStatements {
  return {
    async lockCollection(principal, collectionId) {
      const params = createSqlParams();
      const writable = collectionPredicate(principal, "c", params, "write");
      const { rows } = await tx.query<{ id: string; owner: string; writable: boolean }>(
        `SELECT c.id, c.owner, ${writable} AS writable FROM collections c
         WHERE c.id = ${params.add(collectionId)}::uuid AND ${collectionPredicate(principal, "c", params)}
         FOR UPDATE OF c`,
        params.values,
      );
      return rows[0];
    },

    async makeCollectionShared(principal, collection) {
      const { rows } = await tx.query<{ id: string }>(
        `SELECT e.id FROM collection_members m JOIN entries e ON e.id = m.entry_id
         WHERE m.collection_id = $1 AND e.tenant = $2 AND e.owner = $3 AND e.visibility = 'private'
         ORDER BY e.id FOR UPDATE OF e`,
        [collection.id, principal.tenant, collection.owner],
      );
      return makeShared(
        principal,
        rows.map((row) => row.id),
      );
    },

    async grantOnCollection(principal, collection, grantees) {
      const kinds = grantees.map((grantee) => grantee.kind);
      const names = grantees.map((grantee) => grantee.name);
      await tx.query(
        `INSERT INTO grants (id, tenant, grantor, collection_id, grantee_kind, grantee, permission)
         SELECT w.id, $1, $2, $3, w.kind, w.name, 'read'
         FROM unnest($4::uuid[], $5::text[], $6::text[]) AS w (id, kind, name)
         ON CONFLICT (collection_id, grantee_kind, grantee, permission) WHERE collection_id IS NOT NULL DO NOTHING`,
        [principal.tenant, collection.owner, collection.id, grantees.map(() => createUuidV7()), kinds, names],
      );
      const { rows } = await tx.query<GrantRow>(
        `SELECT ${grantColumns} FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS w (kind, name, position)
         JOIN grants g ON g.collection_id = $3 AND g.grantee_kind = w.kind AND g.grantee = w.name AND g.permission = 'read'
         ORDER BY w.position`,
        [kinds, names, collection.id],
      );
      return rows.map(toGrantRecord);
    },

    async revokeOnCollection(principal, collectionId, grantees, permissions) {
      const params = createSqlParams();
      const { rowCount } = await tx.query(
        `DELETE FROM grants g
         WHERE g.tenant = ${params.add(principal.tenant)} AND g.collection_id = ${params.add(collectionId)}::uuid
           AND g.permission = ANY(${params.add(permissions)}::text[])${granteeCondition(grantees, params)}`,
        params.values,
      );
      return rowCount;
    },
  };
}

/**
 * The grant statements of one transaction. Grants are recorded in the
 * caller's tenant only, so they never open anything across tenants; the
 * callers of these statements have already checked ownership on the locked
 * entry rows.
 */
export function createGrantStatements(tx: SqlExecutor): GrantStatements {
  const sharing = createSharingStatements(tx);
  return {
    ...sharing,
    ...createEntryGrantStatements(tx),
    ...createCollectionGrantStatements(tx, sharing.makeShared),
  };
}

/** Grant listings over the database: the caller's own grants, or an admin's tenant's. */
export function createGrantListing(db: SqlExecutor): GrantListing {
  return {
    async list(principal, filter, limit, offset) {
      const params = createSqlParams();
      const conditions = [`g.tenant = ${params.add(principal.tenant)}`];
      if (!isAdmin(principal)) conditions.push(`g.grantor = ${params.add(principal.subject)}`);
      else if (filter.grantor !== undefined) conditions.push(`g.grantor = ${params.add(filter.grantor)}`);
      if (filter.entryId !== undefined) {
        const id = params.add(filter.entryId);
        // A thread grant reaches the entry when its grantor owns the entry: the same rule as the access predicate's.
        conditions.push(
          `(g.entry_id = ${id}::uuid OR (g.thread_id, g.grantor) = (SELECT e.thread_id, e.owner FROM entries e WHERE e.id = ${id}::uuid AND e.tenant = g.tenant))`,
        );
      }
      if (filter.threadId !== undefined) conditions.push(`g.thread_id = ${params.add(filter.threadId)}`);
      if (filter.collectionId !== undefined)
        conditions.push(`g.collection_id = ${params.add(filter.collectionId)}::uuid`);
      const { rows } = await db.query<GrantRow>(
        `SELECT ${grantColumns} FROM grants g WHERE ${conditions.join(" AND ")}
         ORDER BY g.created_at DESC, g.id DESC LIMIT ${params.add(limit + 1)} OFFSET ${params.add(offset)}`,
        params.values,
      );
      return rows.map(toGrantRecord);
    },
  };
}
