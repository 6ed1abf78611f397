/**
 * The collection service: named, ordered groups of entries.
 *
 * A collection is its owner's; only the owner (or a tenant admin) changes
 * it or its members. Others see it once its owner shares it (a read grant
 * on the collection, see sharing.ts), which also opens the owner's member
 * entries, present and future, to them. A collection nobody may see and one
 * that does not exist get one and the same answer, as do entries.
 *
 * Members are ordered by the owner: an add goes at the end or before the
 * member at a given place; a reorder puts the listed members first, in the
 * order given, and the others after them in their current order. Places
 * are counted among the members the caller sees, so a member hidden from
 * the owner (its own owner withdrew it) never shows, not even as a gap.
 *
 * Adding an entry needs only that the caller may see it: a collection
 * shares its owner's own entries and nothing else (the grant's grantor must
 * own the entry), so adding another's entry never widens who can read it;
 * grantees see such a member only when they may see the entry anyway.
 * Every change is audited in its own transaction. No SQL or transport here.
 */
import { ContextHubError, invalidArgument } from "@context-hub/common";
import type { DenialRecorder } from "../audit/audit.js";
import { entryNotFound, resolveAll } from "../entries/entry-changes.js";
import { createIdempotentRunner, type IdempotencyExpiry, type Outcome } from "../idempotency/idempotency.js";
import { validateCollectionId } from "../model/collection-id.js";
import { toIdQuery } from "../model/id-query.js";
import { decodeListingCursor, encodeListingCursor } from "../model/listing-cursor.js";
import { requirePrincipal, type Principal } from "../model/principal.js";
import {
  collectionLimits,
  collectionNotFound,
  collectionVersionConflict,
  insertedMembers,
  reorderedMembers,
  validateCollectionDescription,
  validateCollectionName,
  validateCollectionPage,
  validateMemberIds,
  type AddToCollectionRequest,
  type AddToCollectionResult,
  type CollectionChangeResult,
  type CollectionPage,
  type CollectionRecord,
  type CollectionWithMembers,
  type CreateCollectionRequest,
  type DeleteCollectionRequest,
  type DeleteCollectionResult,
  type GetCollectionRequest,
  type ListCollectionsRequest,
  type MembersRequest,
  type UpdateCollectionRequest,
} from "./collection-model.js";
import type { CollectionRepository, CollectionWriteScope, LockedCollection } from "./collection-repository.js";

export interface CollectionService {
  create(principal: Principal | undefined, request: CreateCollectionRequest): Promise<Outcome<CollectionRecord>>;
  update(principal: Principal | undefined, request: UpdateCollectionRequest): Promise<Outcome<CollectionRecord>>;
  delete(principal: Principal | undefined, request: DeleteCollectionRequest): Promise<Outcome<DeleteCollectionResult>>;
  list(principal: Principal | undefined, request: ListCollectionsRequest): Promise<CollectionPage>;
  get(principal: Principal | undefined, request: GetCollectionRequest): Promise<CollectionWithMembers>;
  add(principal: Principal | undefined, request: AddToCollectionRequest): Promise<Outcome<AddToCollectionResult>>;
  remove(principal: Principal | undefined, request: MembersRequest): Promise<Outcome<CollectionChangeResult>>;
  reorder(principal: Principal | undefined, request: MembersRequest): Promise<Outcome<CollectionChangeResult>>;
}

/** The locked collection a change may make, or the error that says why not (hidden and missing alike). */
async function lockWritable(scope: CollectionWriteScope, caller: Principal, id: string): Promise<LockedCollection> {
  const collection = await scope.lock(caller, id);
  if (collection === undefined) throw collectionNotFound(id);
  if (!collection.writable) {
    throw new ContextHubError("PERMISSION_DENIED", `you may read collection ${id} but not change it`, {
      remedy: `only its owner (${collection.owner}) changes it or its members`,
    });
  }
  return collection;
}

/** The ids of entries the caller may see, as given (ids or prefixes); any other is ENTRY_NOT_FOUND, hidden and missing alike. */
async function resolveEntries(scope: CollectionWriteScope, caller: Principal, entryIds: readonly string[]) {
  const queries = entryIds.map((id, index) => toIdQuery(id, `entry_ids[${index}]`));
  const resolved = await resolveAll(scope, caller, queries, true);
  return [...new Set(resolved.flatMap((item) => (item.ok ? [item.value.id] : [])))];
}

/** The rank of the last member a page showed; 0 for the first page. */
function decodeMemberCursor(cursor: string): number {
  const [rank] = decodeListingCursor(cursor, "get_collection", 1, ([part]) => /^[1-9]\d{0,8}$/.test(part ?? "")) ?? [
    "0",
  ];
  return Number(rank);
}

/** The collection service over its repository; refusals are recorded by `denials`. */
export function createCollectionService(
  repository: CollectionRepository,
  denials: DenialRecorder,
  expiry?: IdempotencyExpiry,
): CollectionService {
  const runner = createIdempotentRunner(repository, expiry);
  const inTransaction = <T>(
    scope: CollectionWriteScope | undefined,
    work: (scope: CollectionWriteScope) => Promise<T>,
  ): Promise<T> => (scope === undefined ? repository.transaction(work) : work(scope));

  const audit = (
    scope: CollectionWriteScope,
    caller: Principal,
    action: "collection.create" | "collection.update" | "collection.delete" | "collection.members",
    id: string,
    details: Record<string, string | number | string[]>,
  ) =>
    scope.audit.record(caller.tenant, {
      actor: caller.subject,
      action,
      outcome: "ok",
      targetIds: [id],
      beforeHashes: [],
      afterHashes: [],
      details,
    });

  return {
    create(principal, request) {
      return denials.guard(principal, "collection.create", [], async () => {
        const caller = requirePrincipal(principal, "context:write");
        return runner.run(
          caller,
          "CreateCollection",
          request.idempotency,
          () => ({
            name: validateCollectionName(request.name),
            description: validateCollectionDescription(request.description),
          }),
          ({ name, description }, scope) =>
            inTransaction(scope, async (tx) => {
              const collection = await tx.insert(caller, name, description);
              audit(tx, caller, "collection.create", collection.id, { name });
              return collection;
            }),
        );
      });
    },

    update(principal, request) {
      return denials.guard(principal, "collection.update", [request.id], async () => {
        const caller = requirePrincipal(principal, "context:write");
        return runner.run(
          caller,
          "UpdateCollection",
          request.idempotency,
          () => {
            if (request.name === undefined && request.description === undefined)
              throw invalidArgument("give a new name, a new description, or both");
            return {
              id: validateCollectionId(request.id, "id"),
              name: request.name === undefined ? undefined : validateCollectionName(request.name),
              description:
                request.description === undefined ? undefined : validateCollectionDescription(request.description),
            };
          },
          ({ id, name, description }, scope) =>
            inTransaction(scope, async (tx) => {
              const collection = await lockWritable(tx, caller, id);
              if (request.expectedVersion !== undefined && request.expectedVersion !== collection.version)
                throw collectionVersionConflict(id, request.expectedVersion, collection.version);
              await tx.update(caller, id, name ?? collection.name, description ?? collection.description);
              audit(tx, caller, "collection.update", id, {
                ...(name === undefined ? {} : { name }),
                ...(description === undefined ? {} : { description_chars: description.length }),
              });
              return tx.read(caller, id);
            }),
        );
      });
    },

    delete(principal, request) {
      return denials.guard(principal, "collection.delete", [request.id], async () => {
        const caller = requirePrincipal(principal, "context:write");
        return runner.run(
          caller,
          "DeleteCollection",
          request.idempotency,
          () => validateCollectionId(request.id, "id"),
          (id, scope) =>
            inTransaction(scope, async (tx): Promise<DeleteCollectionResult> => {
              const collection = await lockWritable(tx, caller, id);
              if (request.expectedVersion !== undefined && request.expectedVersion !== collection.version)
                throw collectionVersionConflict(id, request.expectedVersion, collection.version);
              const removed = await tx.markDeleted(caller, id);
              audit(tx, caller, "collection.delete", id, {
                name: collection.name,
                removed_members: removed.removedMembers,
                revoked_grants: removed.revokedGrants,
              });
              return { id, name: collection.name, ...removed };
            }),
        );
      });
    },

    async list(principal, request) {
      const caller = requirePrincipal(principal, "context:read");
      const limit = validateCollectionPage(request.limit);
      const after = decodeListingCursor(request.cursor, "list_collections", 2) as [string, string] | undefined;
      const rows = await repository.list(caller, request.owner, after, limit);
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      return {
        collections: page,
        nextCursor: rows.length > limit && last !== undefined ? encodeListingCursor([last.name, last.id]) : "",
      };
    },

    async get(principal, request) {
      const caller = requirePrincipal(principal, "context:read");
      const id = validateCollectionId(request.id, "id");
      const limit = validateCollectionPage(request.limit);
      const afterRank = decodeMemberCursor(request.cursor);
      const collection = await repository.get(caller, id, request.includeQuarantined);
      if (collection === undefined) throw collectionNotFound(id);
      const members = await repository.members(caller, id, request.includeQuarantined, afterRank, limit);
      const page = members.slice(0, limit);
      const last = page[page.length - 1];
      return {
        collection,
        members: page,
        nextCursor: members.length > limit && last !== undefined ? encodeListingCursor([String(last.position)]) : "",
      };
    },

    add(principal, request) {
      return denials.guard(principal, "collection.members", [request.id], async () => {
        const caller = requirePrincipal(principal, "context:write");
        return runner.run(
          caller,
          "AddToCollection",
          request.idempotency,
          () => {
            if (!Number.isSafeInteger(request.position) || request.position < 0)
              throw invalidArgument(`position must be 0 (the end) or a place from 1 (got ${request.position})`);
            return { id: validateCollectionId(request.id, "id"), entryIds: validateMemberIds(request.entryIds) };
          },
          ({ id, entryIds }, scope) =>
            inTransaction(scope, async (tx): Promise<AddToCollectionResult> => {
              const collection = await lockWritable(tx, caller, id);
              const ids = await resolveEntries(tx, caller, entryIds);
              // An entry deleted since it was resolved is not found, as if the delete had come first.
              const present = await tx.lockEntries(ids);
              const gone = ids.find((entryId) => !present.has(entryId));
              if (gone !== undefined) throw entryNotFound(gone);
              const current = await tx.memberOrder(id);
              const members = new Set(current);
              const addedIds = ids.filter((entryId) => !members.has(entryId));
              const alreadyMemberIds = ids.filter((entryId) => members.has(entryId));
              if (current.length + addedIds.length > collectionLimits.members) {
                throw invalidArgument(
                  `a collection holds at most ${collectionLimits.members} members (this one has ${current.length}; adding ${addedIds.length} would pass it)`,
                );
              }
              let nowSharedIds: string[] = [];
              let notOpenedIds: string[] = [];
              if (addedIds.length > 0) {
                const visible = await tx.visibleMemberOrder(caller, id);
                await tx.insertMembers(caller, id, addedIds);
                await tx.writeOrder(id, insertedMembers(current, visible, addedIds, request.position));
                if (await tx.isShared(id)) {
                  // A shared collection opens its owner's future members too: a private one becomes shared, as in a shared thread.
                  nowSharedIds = await tx.makeShared(caller, collection.owner, addedIds);
                  // Others' entries it cannot open: said, so the owner is not led to think its grantees read them.
                  const owners = await tx.entryOwners(caller, addedIds);
                  notOpenedIds = addedIds.filter((entryId) => {
                    const entry = owners.get(entryId);
                    return entry !== undefined && entry.owner !== collection.owner && entry.visibility !== "tenant";
                  });
                }
                await tx.touch(caller, id);
                audit(tx, caller, "collection.members", id, {
                  change: "add",
                  entry_ids: addedIds,
                  ...(nowSharedIds.length === 0 ? {} : { now_shared: nowSharedIds }),
                });
              }
              return { collection: await tx.read(caller, id), addedIds, alreadyMemberIds, nowSharedIds, notOpenedIds };
            }),
        );
      });
    },

    remove(principal, request) {
      return denials.guard(principal, "collection.members", [request.id], async () => {
        const caller = requirePrincipal(principal, "context:write");
        return runner.run(
          caller,
          "RemoveFromCollection",
          request.idempotency,
          () => ({ id: validateCollectionId(request.id, "id"), entryIds: validateMemberIds(request.entryIds) }),
          ({ id, entryIds }, scope) =>
            inTransaction(scope, async (tx): Promise<CollectionChangeResult> => {
              await lockWritable(tx, caller, id);
              const removedIds = await tx.removeMembers(id, await resolveEntries(tx, caller, entryIds));
              if (removedIds.length > 0) {
                await tx.touch(caller, id);
                audit(tx, caller, "collection.members", id, { change: "remove", entry_ids: removedIds });
              }
              return { collection: await tx.read(caller, id), removedIds };
            }),
        );
      });
    },

    reorder(principal, request) {
      return denials.guard(principal, "collection.members", [request.id], async () => {
        const caller = requirePrincipal(principal, "context:write");
        return runner.run(
          caller,
          "ReorderCollection",
          request.idempotency,
          () => ({ id: validateCollectionId(request.id, "id"), entryIds: validateMemberIds(request.entryIds) }),
          ({ id, entryIds }, scope) =>
            inTransaction(scope, async (tx): Promise<CollectionChangeResult> => {
              await lockWritable(tx, caller, id);
              const ids = await resolveEntries(tx, caller, entryIds);
              const current = await tx.memberOrder(id);
              const members = new Set(current);
              const outsider = ids.find((entryId) => !members.has(entryId));
              if (outsider !== undefined)
                throw invalidArgument(
                  `entry ${outsider} is not a member of collection ${id}`,
                  "add it with add_to_collection first",
                );
              await tx.writeOrder(id, reorderedMembers(current, ids));
              await tx.touch(caller, id);
              audit(tx, caller, "collection.members", id, { change: "reorder", entry_ids: ids });
              return { collection: await tx.read(caller, id), removedIds: [] };
            }),
        );
      });
    },
  };
}
