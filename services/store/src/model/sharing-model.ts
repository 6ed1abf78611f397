/** What a grant is, and the statements the sharing service needs from storage inside a write transaction (grant-repository.ts implements them). */
import type { LockedEntry } from "./entry-model.js";
import type { Principal } from "./principal.js";

export type GranteeKind = "subject" | "group";
export type Permission = "read" | "write";

/** Who a grant is for: one subject, or everyone in a group, of the grantor's tenant. */
export interface Grantee {
  kind: GranteeKind;
  name: string;
}

/** A stored grant. Exactly one of `entryId` and `threadId` is set. */
export interface GrantRecord {
  id: string;
  entryId: string | undefined;
  threadId: string | undefined;
  grantee: Grantee;
  permission: Permission;
  /** The owner of the entries it opens: a grant counts only when its grantor owns the entry. */
  grantor: string;
  createdAt: Date;
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
}
