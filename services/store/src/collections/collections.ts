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
import type { DenialRecorder } from "../audit/audit.js";
import { createIdempotentRunner, type IdempotencyExpiry, type Outcome } from "../idempotency/idempotency.js";
import { validateCollectionId } from "../model/collection-id.js";
import { decodeListingCursor, encodeListingCursor } from "../model/listing-cursor.js";
import { requirePrincipal, type Principal } from "../model/principal.js";
import {
  addToCollection,
  createCollection,
  deleteCollection,
  removeFromCollection,
  reorderCollection,
  updateCollection,
  type CollectionChangeContext,
} from "./collection-changes.js";
import {
  collectionNotFound,
  validateCollectionPage,
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
import type { CollectionRepository } from "./collection-repository.js";

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
  const context: CollectionChangeContext = { repository, denials, runner: createIdempotentRunner(repository, expiry) };
  return {
    create: (principal, request) => createCollection(context, principal, request),
    update: (principal, request) => updateCollection(context, principal, request),
    delete: (principal, request) => deleteCollection(context, principal, request),
    list: (principal, request) => listCollections(repository, principal, request),
    get: (principal, request) => getCollection(repository, principal, request),
    add: (principal, request) => addToCollection(context, principal, request),
    remove: (principal, request) => removeFromCollection(context, principal, request),
    reorder: (principal, request) => reorderCollection(context, principal, request),
  };
}

/** One page of the collections the caller may see, by name then id. */
async function listCollections(
  repository: CollectionRepository,
  principal: Principal | undefined,
  request: ListCollectionsRequest,
): Promise<CollectionPage> {
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
}

/** A collection the caller may see with one page of the members it may see, in order. */
async function getCollection(
  repository: CollectionRepository,
  principal: Principal | undefined,
  request: GetCollectionRequest,
): Promise<CollectionWithMembers> {
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
}
