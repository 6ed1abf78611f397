/**
 * Sharing: grants of read or write on a caller's entries, one by one or on
 * a whole thread, grants of read on a collection, and their revocation. Only an entry's owner (or a tenant
 * admin) may share it; ids resolve among entries the caller may see, so an
 * entry the caller cannot see is reported exactly as one that does not
 * exist. No transport or SQL here.
 */
import { ContextHubError, invalidArgument } from "@context-hub/common";
import { collectionNotFound } from "../collections/collection-model.js";
import { validateCollectionId } from "../model/collection-id.js";
import { lockVisible, requireOwner, resolveAll } from "../entries/entry-changes.js";
import { validateItemCount } from "../entries/entry-validation.js";
import { listGrants, type GrantPage, type ListGrantsRequest } from "./grant-listing.js";
import { validateThreadId } from "../model/field-validation.js";
import {
  sharingLimits,
  type Grantee,
  type GranteeKind,
  type GrantListing,
  type GrantRecord,
  type LockedCollectionGrants,
  type Permission,
} from "../model/sharing-model.js";
import type { EntryRepository, EntryWriteScope } from "../entries/entry-ports.js";
import type { LockedEntry } from "../model/entry-model.js";
import { toIdQuery, type IdQuery } from "../model/id-query.js";
import { createIdempotentRunner, type IdempotencyExpiry, type Outcome } from "../idempotency/idempotency.js";
import type { IdempotencyRequest } from "../model/idempotency-request.js";
import { requirePrincipal, type Principal } from "../model/principal.js";
import type { AuditEvent, DenialRecorder } from "../audit/audit.js";

export interface GranteeInput {
  kind: GranteeKind | undefined;
  name: string;
}

export interface ShareRequest {
  entryIds: readonly string[];
  /** Empty unless sharing a thread (exclusive with `entryIds`). */
  threadId: string;
  /** Empty unless sharing a collection, for reading only (exclusive with the others). */
  collectionId?: string | undefined;
  grantees: readonly GranteeInput[];
  permission: Permission | undefined;
  idempotency?: IdempotencyRequest<ShareResult> | undefined;
}

export interface ShareResult {
  grants: GrantRecord[];
  /** Entries whose visibility changed from private to shared. */
  nowSharedIds: string[];
}

export interface UnshareRequest {
  entryIds: readonly string[];
  threadId: string;
  collectionId?: string | undefined;
  /** Empty: every grantee. */
  grantees: readonly GranteeInput[];
  /** Undefined: both permissions. */
  permission: Permission | undefined;
  idempotency?: IdempotencyRequest<UnshareResult> | undefined;
}

export interface UnshareResult {
  revokedCount: number;
}

export interface SharingService {
  /**
   * Grants `permission` to the grantees. On entries: each must be the
   * caller's (or the caller an admin); a private one becomes shared. On a
   * thread: the caller's entries in it, now and later; the caller's private
   * entries there become shared, and the caller's new entries there default
   * to shared. On a collection (read only): its owner's member entries, now
   * and later; the owner's private members become shared, as do the
   * owner's entries added to it later. One transaction: all or nothing.
   */
  share(principal: Principal | undefined, request: ShareRequest): Promise<Outcome<ShareResult>>;
  /** Revokes matching grants; visibility stays as it is. One transaction. */
  unshare(principal: Principal | undefined, request: UnshareRequest): Promise<Outcome<UnshareResult>>;
  /**
   * The grants the caller made, newest first (a tenant admin: any grantor's, or `grantor`'s), on one entry (with its
   * owner's grants on its thread), thread or collection, or all of them. Only grants the caller made (or, as an
   * admin, could read whole anyway) are read, so no answer says anything about what the caller cannot see.
   */
  listGrants(principal: Principal | undefined, request: ListGrantsRequest): Promise<GrantPage>;
}

type SharingTarget =
  | { kind: "entries"; queries: IdQuery[] }
  | { kind: "thread"; threadId: string }
  | { kind: "collection"; collectionId: string };

function validateTarget(entryIds: readonly string[], threadId: string, collectionId: string): SharingTarget {
  if (collectionId !== "") {
    if (threadId !== "" || entryIds.length > 0)
      throw invalidArgument("give collection_id alone, without entry_ids or thread_id");
    return { kind: "collection", collectionId: validateCollectionId(collectionId, "collection_id") };
  }
  if (threadId !== "" && entryIds.length > 0) throw invalidArgument("give either entry_ids or thread_id, not both");
  if (threadId !== "") return { kind: "thread", threadId: validateThreadId(threadId, "thread_id") };
  if (entryIds.length === 0) throw invalidArgument("give entry_ids, a thread_id or a collection_id");
  validateItemCount(entryIds.length, "entry_ids");
  return { kind: "entries", queries: entryIds.map((id, index) => toIdQuery(id, `entry_ids[${index}]`)) };
}

function validateGrantees(grantees: readonly GranteeInput[], required: boolean): Grantee[] {
  if (required && grantees.length === 0) throw invalidArgument("grantees must name at least one subject or group");
  if (grantees.length > sharingLimits.grantees)
    throw invalidArgument(`grantees: at most ${sharingLimits.grantees} (got ${grantees.length})`);
  const unique = new Map<string, Grantee>();
  grantees.forEach((grantee, index) => {
    if (grantee.kind === undefined) throw invalidArgument(`grantees[${index}].kind must be subject or group`);
    const { name } = grantee;
    if (name.length < 1 || name.length > sharingLimits.granteeNameLength) {
      throw invalidArgument(
        `grantees[${index}].name must be 1 to ${sharingLimits.granteeNameLength} characters (got ${name.length})`,
      );
    }
    if (name.includes("\u0000")) throw invalidArgument(`grantees[${index}].name must not contain NUL characters`);
    unique.set(JSON.stringify([grantee.kind, name]), { kind: grantee.kind, name });
  });
  return [...unique.values()];
}

/**
 * Resolves and locks the entries of a sharing call in id order, and
 * requires that the caller owns each (or is an admin). Ids resolve among
 * entries the caller may see: invisible ones are ENTRY_NOT_FOUND.
 */
async function lockOwnedEntries(
  scope: EntryWriteScope,
  caller: Principal,
  queries: readonly IdQuery[],
  what: string,
): Promise<LockedEntry[]> {
  const resolved = (await resolveAll(scope, caller, queries, true)).flatMap((item) => (item.ok ? [item.value] : []));
  await scope.lockEntries(
    caller,
    resolved.map((item) => item.id),
  );
  const entries = new Map<string, LockedEntry>();
  for (const item of resolved) {
    if (entries.has(item.id)) continue;
    const entry = await lockVisible(scope, caller, item.id, item.input);
    requireOwner(caller, entry, what);
    entries.set(entry.id, entry);
  }
  return [...entries.values()];
}

/** Locks a collection whose grants the caller changes: its owner's (or an admin's); hidden and missing alike otherwise. */
async function lockOwnedCollection(
  scope: EntryWriteScope,
  caller: Principal,
  collectionId: string,
): Promise<LockedCollectionGrants> {
  const collection = await scope.grants.lockCollection(caller, collectionId);
  if (collection === undefined) throw collectionNotFound(collectionId);
  if (!collection.writable)
    throw new ContextHubError(
      "PERMISSION_DENIED",
      `only the owner of collection ${collectionId} may change its sharing`,
    );
  return collection;
}

function grantDetails(
  grantees: readonly Grantee[] | undefined,
  permissions: readonly Permission[],
): AuditEvent["details"] {
  return {
    grantees: grantees === undefined ? ["*"] : grantees.map((grantee) => `${grantee.kind}:${grantee.name}`),
    permissions: [...permissions],
  };
}
/** Grants `permission` on the target to the grantees in the open transaction, opening what the grants reach. */
async function shareIn(
  tx: EntryWriteScope,
  caller: Principal,
  target: SharingTarget,
  grantees: readonly Grantee[],
  permission: Permission,
): Promise<ShareResult> {
  if (target.kind === "collection") {
    const collection = await lockOwnedCollection(tx, caller, target.collectionId);
    const grants = await tx.grants.grantOnCollection(caller, collection, grantees);
    const nowSharedIds = await tx.grants.makeCollectionShared(caller, collection);
    tx.audit.record(caller.tenant, {
      actor: caller.subject,
      action: "collection.share",
      outcome: "ok",
      targetIds: [collection.id],
      beforeHashes: [],
      afterHashes: [],
      details: { ...grantDetails(grantees, [permission]), now_shared: nowSharedIds },
    });
    return { grants, nowSharedIds };
  }
  if (target.kind === "thread") {
    // Under the thread's lock, so no commit in the thread can slip between the grant and the flip and stay private.
    await tx.lockThreads(caller, [target.threadId]);
    const grants = await tx.grants.grantOnThread(caller, target.threadId, grantees, permission);
    const nowSharedIds = await tx.grants.makeThreadShared(caller, target.threadId);
    tx.audit.record(caller.tenant, {
      actor: caller.subject,
      action: "thread.share",
      outcome: "ok",
      targetIds: [target.threadId],
      beforeHashes: [],
      afterHashes: [],
      details: { ...grantDetails(grantees, [permission]), now_shared: nowSharedIds },
    });
    return { grants, nowSharedIds };
  }
  const entries = await lockOwnedEntries(tx, caller, target.queries, "share it");
  const nowSharedIds = await tx.grants.makeShared(
    caller,
    entries.filter((entry) => entry.visibility === "private").map((entry) => entry.id),
  );
  const grants = await tx.grants.grantOnEntries(caller, entries, grantees, permission);
  tx.audit.record(caller.tenant, {
    actor: caller.subject,
    action: "entry.share",
    outcome: "ok",
    targetIds: entries.map((entry) => entry.id),
    beforeHashes: entries.map((entry) => entry.contentHash),
    afterHashes: entries.map((entry) => entry.contentHash),
    details: { ...grantDetails(grantees, [permission]), now_shared: nowSharedIds },
  });
  return { grants, nowSharedIds };
}

/** Revokes the grants on the target matching the grantees and permissions in the open transaction. */
async function unshareIn(
  tx: EntryWriteScope,
  caller: Principal,
  target: SharingTarget,
  grantees: readonly Grantee[] | undefined,
  permissions: readonly Permission[],
): Promise<UnshareResult> {
  if (target.kind === "collection") {
    const collection = await lockOwnedCollection(tx, caller, target.collectionId);
    const revokedCount = await tx.grants.revokeOnCollection(caller, collection.id, grantees, permissions);
    tx.audit.record(caller.tenant, {
      actor: caller.subject,
      action: "collection.unshare",
      outcome: "ok",
      targetIds: [collection.id],
      beforeHashes: [],
      afterHashes: [],
      details: { ...grantDetails(grantees, permissions), revoked: revokedCount },
    });
    return { revokedCount };
  }
  if (target.kind === "thread") {
    const revokedCount = await tx.grants.revokeOnThread(caller, target.threadId, grantees, permissions);
    tx.audit.record(caller.tenant, {
      actor: caller.subject,
      action: "thread.unshare",
      outcome: "ok",
      targetIds: [target.threadId],
      beforeHashes: [],
      afterHashes: [],
      details: { ...grantDetails(grantees, permissions), revoked: revokedCount },
    });
    return { revokedCount };
  }
  const entries = await lockOwnedEntries(tx, caller, target.queries, "change its sharing");
  const revokedCount = await tx.grants.revokeOnEntries(
    caller,
    entries.map((entry) => entry.id),
    grantees,
    permissions,
  );
  tx.audit.record(caller.tenant, {
    actor: caller.subject,
    action: "entry.unshare",
    outcome: "ok",
    targetIds: entries.map((entry) => entry.id),
    beforeHashes: [],
    afterHashes: [],
    details: { ...grantDetails(grantees, permissions), revoked: revokedCount },
  });
  return { revokedCount };
}

/**
 * The sharing service over the entry repository (grants live beside the
 * entries they open). Each share and unshare is audited in its transaction;
 * refusals are recorded by `denials`.
 */
export function createSharingService(
  repository: EntryRepository,
  grants: GrantListing,
  denials: DenialRecorder,
  expiry?: IdempotencyExpiry,
): SharingService {
  const service = createSharingOperations(repository, expiry);
  const targets = (request: { entryIds: readonly string[]; threadId: string; collectionId?: string | undefined }) =>
    (request.collectionId ?? "") !== ""
      ? [request.collectionId ?? ""]
      : request.threadId === ""
        ? request.entryIds
        : [request.threadId];
  const targetKind = (request: { threadId: string; collectionId?: string | undefined }) =>
    (request.collectionId ?? "") !== "" ? "collection" : request.threadId === "" ? "entry" : "thread";
  return {
    share: (principal, request) =>
      denials.guard(principal, `${targetKind(request)}.share`, targets(request), () =>
        service.share(principal, request),
      ),
    unshare: (principal, request) =>
      denials.guard(principal, `${targetKind(request)}.unshare`, targets(request), () =>
        service.unshare(principal, request),
      ),
    listGrants: (principal, request) =>
      denials.guard(principal, "grant.read", [], () => listGrants(grants, principal, request)),
  };
}

/** Sharing itself; refusals are recorded by `createSharingService`. */
function createSharingOperations(
  repository: EntryRepository,
  expiry: IdempotencyExpiry | undefined,
): Omit<SharingService, "listGrants"> {
  const idempotent = createIdempotentRunner(repository, expiry);
  const within = <T>(scope: EntryWriteScope | undefined, fn: (scope: EntryWriteScope) => Promise<T>): Promise<T> =>
    scope === undefined ? repository.transaction(fn) : fn(scope);

  return {
    async share(principal, request) {
      const caller = requirePrincipal(principal, "context:write");
      return idempotent.run(
        caller,
        "Share",
        request.idempotency,
        () => {
          const target = validateTarget(request.entryIds, request.threadId, request.collectionId ?? "");
          const grantees = validateGrantees(request.grantees, true);
          if (request.permission === undefined) throw invalidArgument("permission must be read or write");
          if (target.kind === "collection" && request.permission !== "read")
            throw invalidArgument(
              "a collection is shared for reading only: permission must be read",
              "to let others change entries, share the entries or their thread with write",
            );
          return { target, grantees, permission: request.permission };
        },
        ({ target, grantees, permission }, scope) =>
          within(scope, (tx) => shareIn(tx, caller, target, grantees, permission)),
      );
    },

    async unshare(principal, request) {
      const caller = requirePrincipal(principal, "context:write");
      return idempotent.run(
        caller,
        "Unshare",
        request.idempotency,
        () => {
          const target = validateTarget(request.entryIds, request.threadId, request.collectionId ?? "");
          const grantees = validateGrantees(request.grantees, false);
          return {
            target,
            grantees: grantees.length === 0 ? undefined : grantees,
            permissions: request.permission === undefined ? (["read", "write"] as const) : [request.permission],
          };
        },
        ({ target, grantees, permissions }, scope) =>
          within(scope, (tx) => unshareIn(tx, caller, target, grantees, permissions)),
      );
    },
  };
}
