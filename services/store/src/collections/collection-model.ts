/** What a collection is, what the collection calls ask, and the checks that make a request valid. No SQL or transport here. */
import { ContextHubError, invalidArgument } from "@context-hub/common";
import type { StoredEntry } from "../model/entry-model.js";
import type { IdempotencyRequest } from "../model/idempotency-request.js";

export const collectionLimits = {
  nameChars: 200,
  descriptionChars: 2_000,
  /** Members of one collection. */
  members: 10_000,
  /** Entry ids in one add, remove or reorder. */
  entryIds: 1_000,
  defaultPage: 20,
  maxPage: 100,
} as const;

/** A collection as a caller sees it: `memberCount` counts the members that caller may see. */
export interface CollectionRecord {
  id: string;
  name: string;
  description: string;
  owner: string;
  version: number;
  createdAt: Date;
  updatedAt: Date;
  memberCount: number;
}

/** A member in a listing: the entry without its text, its rank among the members the caller sees, and who added it when. */
export interface CollectionMember {
  entry: StoredEntry;
  position: number;
  addedAt: Date;
  addedBy: string;
}

export interface CreateCollectionRequest {
  name: string;
  description: string;
  idempotency?: IdempotencyRequest<CollectionRecord> | undefined;
}

export interface UpdateCollectionRequest {
  id: string;
  name: string | undefined;
  description: string | undefined;
  expectedVersion: number | undefined;
  idempotency?: IdempotencyRequest<CollectionRecord> | undefined;
}

export interface DeleteCollectionRequest {
  id: string;
  expectedVersion: number | undefined;
  idempotency?: IdempotencyRequest<DeleteCollectionResult> | undefined;
}

export interface DeleteCollectionResult {
  id: string;
  name: string;
  removedMembers: number;
  revokedGrants: number;
}

export interface ListCollectionsRequest {
  owner: string;
  limit: number;
  cursor: string;
}

export interface CollectionPage {
  collections: CollectionRecord[];
  nextCursor: string;
}

export interface GetCollectionRequest {
  id: string;
  limit: number;
  cursor: string;
  includeQuarantined: boolean;
}

export interface CollectionWithMembers {
  collection: CollectionRecord;
  members: CollectionMember[];
  nextCursor: string;
}

export interface AddToCollectionRequest {
  id: string;
  entryIds: readonly string[];
  /** 1-based among the members the caller sees; 0 for the end. */
  position: number;
  idempotency?: IdempotencyRequest<AddToCollectionResult> | undefined;
}

export interface AddToCollectionResult {
  collection: CollectionRecord;
  addedIds: string[];
  alreadyMemberIds: string[];
  nowSharedIds: string[];
  /** In a shared collection: added entries of others, not tenant-wide, that its grants do not open. */
  notOpenedIds: string[];
}

export interface MembersRequest {
  id: string;
  entryIds: readonly string[];
  idempotency?: IdempotencyRequest<CollectionChangeResult> | undefined;
}

export interface CollectionChangeResult {
  collection: CollectionRecord;
  /** Remove only: the members removed. */
  removedIds: string[];
}

function validateText(value: string, field: string, max: number, required: boolean): string {
  const text = value.trim();
  if (required && text === "") throw invalidArgument(`${field} must not be empty`);
  if (text.length > max) throw invalidArgument(`${field} is ${text.length} characters; the limit is ${max}`);
  if (text.includes("\u0000")) throw invalidArgument(`${field} must not contain NUL characters`);
  return text;
}

/** A name: trimmed, one line, 1 to 200 characters. */
export function validateCollectionName(name: string, field = "name"): string {
  const valid = validateText(name, field, collectionLimits.nameChars, true);
  if (/[\r\n]/.test(valid)) throw invalidArgument(`${field} must be one line`);
  return valid;
}

/** A description: trimmed, up to 2,000 characters; empty for none. */
export function validateCollectionDescription(description: string, field = "description"): string {
  return validateText(description, field, collectionLimits.descriptionChars, false);
}

/** A page size: 0 means the default; 1 to 100 otherwise. */
export function validateCollectionPage(limit: number, field = "limit"): number {
  if (limit === 0) return collectionLimits.defaultPage;
  if (!Number.isInteger(limit) || limit < 1 || limit > collectionLimits.maxPage)
    throw invalidArgument(`${field} must be 1 to ${collectionLimits.maxPage} (got ${limit})`);
  return limit;
}

/** The entry ids of one add, remove or reorder: 1 to 1,000, none twice. */
export function validateMemberIds(entryIds: readonly string[]): string[] {
  if (entryIds.length === 0) throw invalidArgument("entry_ids must name at least one entry");
  if (entryIds.length > collectionLimits.entryIds)
    throw invalidArgument(`entry_ids: at most ${collectionLimits.entryIds} (got ${entryIds.length})`);
  const seen = new Set<string>();
  for (const id of entryIds) {
    const key = id.trim().toLowerCase();
    if (seen.has(key)) throw invalidArgument(`entry_ids names ${JSON.stringify(id)} twice`);
    seen.add(key);
  }
  return [...entryIds];
}

/** A collection nobody may see and one that does not exist get this same answer (invariant I-2). */
export function collectionNotFound(id: string): ContextHubError {
  return new ContextHubError("ENTRY_NOT_FOUND", `no collection ${id} that you can see`, {
    remedy: "list_collections shows the collections you can see",
  });
}

/** The compare-and-set conflict: told only to callers who may change the collection. */
export function collectionVersionConflict(id: string, expected: number, actual: number): ContextHubError {
  return new ContextHubError(
    "VERSION_CONFLICT",
    `collection ${id} is at version ${actual}, not the expected ${expected}`,
    { remedy: `read it again (get_collection), then retry with expected_version ${actual}`, details: { actual } },
  );
}

/**
 * The new order of a collection's members after a reorder: `first` (member
 * ids, in the order given) come first; every other member follows in its
 * current order. Listing every member sets the whole order.
 */
export function reorderedMembers(current: readonly string[], first: readonly string[]): string[] {
  const moved = new Set(first);
  return [...first, ...current.filter((id) => !moved.has(id))];
}

/**
 * The new order after adding `added` (not yet members) before the
 * `position`-th member among `visible` (the members the caller sees, in
 * order); at the end when `position` is 0 or past the last visible member.
 * Members the caller cannot see keep their places relative to the others.
 */
export function insertedMembers(
  current: readonly string[],
  visible: readonly string[],
  added: readonly string[],
  position: number,
): string[] {
  const before = position === 0 ? undefined : visible[position - 1];
  const at = before === undefined ? current.length : current.indexOf(before);
  return [...current.slice(0, at), ...added, ...current.slice(at)];
}
