/**
 * The collection service's changes: creating, renaming and deleting a
 * collection, and adding, removing and reordering its members. Each runs
 * once per idempotency key, in its own audited transaction, after the
 * caller is found allowed to change the collection.
 */
import { ContextHubError, invalidArgument } from "@context-hub/common";
import type { DenialRecorder } from "../audit/audit.js";
import { entryNotFound, resolveAll } from "../entries/entry-changes.js";
import type { IdempotentRunner, Outcome } from "../idempotency/idempotency.js";
import { validateCollectionId } from "../model/collection-id.js";
import { toIdQuery } from "../model/id-query.js";
import { requirePrincipal, type Principal } from "../model/principal.js";
import {
  collectionLimits,
  collectionNotFound,
  collectionVersionConflict,
  insertedMembers,
  reorderedMembers,
  validateCollectionDescription,
  validateCollectionName,
  validateMemberIds,
  type AddToCollectionRequest,
  type AddToCollectionResult,
  type CollectionChangeResult,
  type CollectionRecord,
  type CreateCollectionRequest,
  type DeleteCollectionRequest,
  type DeleteCollectionResult,
  type MembersRequest,
  type UpdateCollectionRequest,
} from "./collection-model.js";
import type { CollectionRepository, CollectionWriteScope, LockedCollection } from "./collection-repository.js";

/** What every collection change needs: the repository, the refusal recorder and the idempotent runner. */
export interface CollectionChangeContext {
  repository: CollectionRepository;
  denials: DenialRecorder;
  runner: IdempotentRunner<CollectionWriteScope>;
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

/** Runs `work` in the runner's transaction when there is one, else in a new one. */
function inTransaction<T>(
  context: CollectionChangeContext,
  scope: CollectionWriteScope | undefined,
  work: (scope: CollectionWriteScope) => Promise<T>,
): Promise<T> {
  return scope === undefined ? context.repository.transaction(work) : work(scope);
}

/** Records a successful change of collection `id` in the transaction's audit. */
function audit(
  scope: CollectionWriteScope,
  caller: Principal,
  action: "collection.create" | "collection.update" | "collection.delete" | "collection.members",
  id: string,
  details: Record<string, string | number | string[]>,
): void {
  scope.audit.record(caller.tenant, {
    actor: caller.subject,
    action,
    outcome: "ok",
    targetIds: [id],
    beforeHashes: [],
    afterHashes: [],
    details,
  });
}

/** Creates a collection owned by the caller. */
export function createCollection(
  context: CollectionChangeContext,
  principal: Principal | undefined,
  request: CreateCollectionRequest,
): Promise<Outcome<CollectionRecord>> {
  return context.denials.guard(principal, "collection.create", [], async () => {
    const caller = requirePrincipal(principal, "context:write");
    return context.runner.run(
      caller,
      "CreateCollection",
      request.idempotency,
      () => ({
        name: validateCollectionName(request.name),
        description: validateCollectionDescription(request.description),
      }),
      ({ name, description }, scope) =>
        inTransaction(context, scope, async (tx) => {
          const collection = await tx.insert(caller, name, description);
          audit(tx, caller, "collection.create", collection.id, { name });
          return collection;
        }),
    );
  });
}

/** Renames a collection or changes its description, at the version the caller expects if it names one. */
export function updateCollection(
  context: CollectionChangeContext,
  principal: Principal | undefined,
  request: UpdateCollectionRequest,
): Promise<Outcome<CollectionRecord>> {
  return context.denials.guard(principal, "collection.update", [request.id], async () => {
    const caller = requirePrincipal(principal, "context:write");
    return context.runner.run(
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
        inTransaction(context, scope, async (tx) => {
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
}

/** Deletes a collection with its memberships and grants, at the version the caller expects if it names one. */
export function deleteCollection(
  context: CollectionChangeContext,
  principal: Principal | undefined,
  request: DeleteCollectionRequest,
): Promise<Outcome<DeleteCollectionResult>> {
  return context.denials.guard(principal, "collection.delete", [request.id], async () => {
    const caller = requirePrincipal(principal, "context:write");
    return context.runner.run(
      caller,
      "DeleteCollection",
      request.idempotency,
      () => validateCollectionId(request.id, "id"),
      (id, scope) =>
        inTransaction(context, scope, async (tx): Promise<DeleteCollectionResult> => {
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
}

/** Adds the entries the caller may see to a collection, at its end or before the member at `request.position`. */
export function addToCollection(
  context: CollectionChangeContext,
  principal: Principal | undefined,
  request: AddToCollectionRequest,
): Promise<Outcome<AddToCollectionResult>> {
  return context.denials.guard(principal, "collection.members", [request.id], async () => {
    const caller = requirePrincipal(principal, "context:write");
    return context.runner.run(
      caller,
      "AddToCollection",
      request.idempotency,
      () => {
        if (!Number.isSafeInteger(request.position) || request.position < 0)
          throw invalidArgument(`position must be 0 (the end) or a place from 1 (got ${request.position})`);
        return { id: validateCollectionId(request.id, "id"), entryIds: validateMemberIds(request.entryIds) };
      },
      ({ id, entryIds }, scope) =>
        inTransaction(context, scope, (tx) => addMembers(tx, caller, id, entryIds, request.position)),
    );
  });
}

/** Adds the resolved entries in the open transaction; a shared collection opens its owner's new members too. */
async function addMembers(
  tx: CollectionWriteScope,
  caller: Principal,
  id: string,
  entryIds: readonly string[],
  position: number,
): Promise<AddToCollectionResult> {
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
    await tx.writeOrder(id, insertedMembers(current, visible, addedIds, position));
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
}

/** Removes the entries the caller names (among those it may see) from a collection. */
export function removeFromCollection(
  context: CollectionChangeContext,
  principal: Principal | undefined,
  request: MembersRequest,
): Promise<Outcome<CollectionChangeResult>> {
  return context.denials.guard(principal, "collection.members", [request.id], async () => {
    const caller = requirePrincipal(principal, "context:write");
    return context.runner.run(
      caller,
      "RemoveFromCollection",
      request.idempotency,
      () => ({ id: validateCollectionId(request.id, "id"), entryIds: validateMemberIds(request.entryIds) }),
      ({ id, entryIds }, scope) =>
        inTransaction(context, scope, async (tx): Promise<CollectionChangeResult> => {
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
}

/** Puts the listed members first, in the order given, and the others after them in their current order. */
export function reorderCollection(
  context: CollectionChangeContext,
  principal: Principal | undefined,
  request: MembersRequest,
): Promise<Outcome<CollectionChangeResult>> {
  return context.denials.guard(principal, "collection.members", [request.id], async () => {
    const caller = requirePrincipal(principal, "context:write");
    return context.runner.run(
      caller,
      "ReorderCollection",
      request.idempotency,
      () => ({ id: validateCollectionId(request.id, "id"), entryIds: validateMemberIds(request.entryIds) }),
      ({ id, entryIds }, scope) =>
        inTransaction(context, scope, async (tx): Promise<CollectionChangeResult> => {
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
}
