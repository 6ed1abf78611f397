/** What a grant is, and the statements the sharing service needs from storage inside a write transaction (grant-repository.ts implements them). */
import type { LockedEntry } from "./entry-model.js";
import type { Principal } from "./principal.js";

export type GranteeKind = "subject" | "group";

/** Grantees per share, and the length of a grantee's (and so a grantor's) name. */
export const sharingLimits = { grantees: 50, granteeNameLength: 256 } as const;
export type Permission = "read" | "write";

/** Who a grant is for: one subject, or everyone in a group, of the grantor's tenant. */
export interface Grantee {
  kind: GranteeKind;
  name: string;
}

/** A stored grant. Exactly one of `entryId`, `threadId` and `collectionId` is set. */
export interface GrantRecord {
  id: string;
  entryId: string | undefined;
  threadId: string | undefined;
  collectionId: string | undefined;
  grantee: Grantee;
  permission: Permission;
  /** The owner of the entries it opens (and of the collection it is on): a grant counts only when its grantor owns the entry. */
  grantor: string;
  createdAt: Date;
}

/** A collection locked for a change of its grants, as the caller may see it. */
export interface LockedCollectionGrants {
  id: string;
  owner: string;
  /** Whether the caller may change it (its owner, or a tenant admin). */
  writable: boolean;
}

/** The statements behind sharing, all inside one transaction. */
export interface GrantStatements {
  /** Makes the given private entries shared; returns those that changed. */
  makeShared(principal: Principal, ids: readonly string[]): Promise<string[]>;
  /** Makes the caller's private entries in a thread shared; returns those that changed. */
  makeThreadShared(principal: Principal, threadId: string): Promise<string[]>;
  /** Grants `permission` on each entry (by its owner) to each grantee; an existing grant is kept, not doubled. Returns every requested grant. */
  grantOnEntries(
    principal: Principal,
    entries: readonly LockedEntry[],
    grantees: readonly Grantee[],
    permission: Permission,
  ): Promise<GrantRecord[]>;
  /** Grants `permission` on the caller's entries in a thread (now and later) to each grantee. Returns every requested grant. */
  grantOnThread(
    principal: Principal,
    threadId: string,
    grantees: readonly Grantee[],
    permission: Permission,
  ): Promise<GrantRecord[]>;
  /** Removes grants on the entries matching the grantees (all when undefined) and permissions; returns how many. */
  revokeOnEntries(
    principal: Principal,
    entryIds: readonly string[],
    grantees: readonly Grantee[] | undefined,
    permissions: readonly Permission[],
  ): Promise<number>;
  /** Removes the caller's thread grants matching the grantees (all when undefined) and permissions; returns how many. */
  revokeOnThread(
    principal: Principal,
    threadId: string,
    grantees: readonly Grantee[] | undefined,
    permissions: readonly Permission[],
  ): Promise<number>;
  /** The collection, locked until the transaction ends, if the caller may see it. */
  lockCollection(principal: Principal, collectionId: string): Promise<LockedCollectionGrants | undefined>;
  /** Makes the collection owner's private member entries shared (locked in id order); returns those that changed. */
  makeCollectionShared(principal: Principal, collection: LockedCollectionGrants): Promise<string[]>;
  /** Grants read on the collection (by its owner) to each grantee. Returns every requested grant. */
  grantOnCollection(
    principal: Principal,
    collection: LockedCollectionGrants,
    grantees: readonly Grantee[],
  ): Promise<GrantRecord[]>;
  /** Removes the collection's grants matching the grantees (all when undefined) and permissions; returns how many. */
  revokeOnCollection(
    principal: Principal,
    collectionId: string,
    grantees: readonly Grantee[] | undefined,
    permissions: readonly Permission[],
  ): Promise<number>;
}

/** Which grants a listing shows; at most one of `entryId`, `threadId` and `collectionId` is set. */
export interface GrantFilter {
  /** A full entry id: the grants on it and its owner's grants on its thread (both reach it). */
  entryId: string | undefined;
  threadId: string | undefined;
  collectionId: string | undefined;
  /** Only this grantor's grants (admins; everyone else sees only their own). */
  grantor: string | undefined;
}

/** Reads of grants, outside any write transaction (grant-repository.ts implements it). */
export interface GrantListing {
  /**
   * The grants the caller made (a tenant admin: any grantor's in its tenant) matching `filter`, newest first, up to
   * `limit + 1` rows from `offset` (the extra row tells there are more). A caller who made no grant sees none, so the
   * answer never depends on entries, threads or collections the caller cannot see.
   */
  list(principal: Principal, filter: GrantFilter, limit: number, offset: number): Promise<GrantRecord[]>;
}
