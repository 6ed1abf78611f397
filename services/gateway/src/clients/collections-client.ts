/** Collections as the tools ask for them, over CollectionsService: proto built and read here, answers in the tools' snake_case. */
import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import type { storeV1 } from "@context-hub/proto";
import type { Idempotency } from "../idempotency.js";
import type { Principal } from "../principal.js";
import { toEntryListing } from "./entry-views.js";
import type { CollectionsServiceClient } from "./peers.js";

const iso = (timestamp: Timestamp | undefined) =>
  timestamp === undefined ? null : timestampDate(timestamp).toISOString();

/** A collection as a tool returns it; member_count counts the members the caller can see. */
function toCollectionView(collection: storeV1.Collection | undefined) {
  return {
    collection_id: collection?.id ?? "",
    name: collection?.name ?? "",
    description: collection?.description ?? "",
    owner: collection?.owner ?? "",
    version: collection?.version ?? 0,
    member_count: collection?.memberCount ?? 0,
    created_at: iso(collection?.createdAt),
    updated_at: iso(collection?.updatedAt),
  };
}

export type CollectionView = ReturnType<typeof toCollectionView>;

/** A member: the entry as listings name it (title, kind, thread, preview, …), its place, and who added it when. */
function toMemberView(member: storeV1.CollectionMember) {
  return {
    position: member.position,
    added_at: iso(member.addedAt),
    added_by: member.addedBy,
    entry: toEntryListing(member.entry!),
  };
}

const idempotent = (idempotency: Idempotency | undefined) => (idempotency === undefined ? {} : { idempotency });

/** Creating, renaming and deleting collections. */
function collectionEdits(store: CollectionsServiceClient) {
  return {
    async create(principal: Principal, input: { name: string; description: string; idempotency?: Idempotency }) {
      const reply = await store.createCollection({
        principal,
        name: input.name,
        description: input.description,
        ...idempotent(input.idempotency),
      });
      return toCollectionView(reply.collection);
    },

    async update(
      principal: Principal,
      input: {
        id: string;
        name: string | undefined;
        description: string | undefined;
        expectedVersion: number | undefined;
        idempotency?: Idempotency | undefined;
      },
    ) {
      const reply = await store.updateCollection({
        principal,
        id: input.id,
        ...(input.name === undefined ? {} : { name: input.name }),
        ...(input.description === undefined ? {} : { description: input.description }),
        ...(input.expectedVersion === undefined ? {} : { expectedVersion: input.expectedVersion }),
        ...idempotent(input.idempotency),
      });
      return toCollectionView(reply.collection);
    },

    async delete(
      principal: Principal,
      input: { id: string; expectedVersion: number | undefined; idempotency?: Idempotency | undefined },
    ) {
      const reply = await store.deleteCollection({
        principal,
        id: input.id,
        ...(input.expectedVersion === undefined ? {} : { expectedVersion: input.expectedVersion }),
        ...idempotent(input.idempotency),
      });
      return {
        collection_id: reply.id,
        name: reply.name,
        removed_members: reply.removedMembers,
        revoked_grants: reply.revokedGrants,
      };
    },
  };
}

/** Listing collections and reading one with a page of its members. */
function collectionReads(store: CollectionsServiceClient) {
  return {
    async list(principal: Principal, input: { owner: string; limit: number; cursor: string }) {
      const reply = await store.listCollections({ principal, ...input });
      return { collections: reply.collections.map(toCollectionView), nextCursor: reply.nextCursor };
    },

    async get(principal: Principal, input: { id: string; limit: number; cursor: string; includeQuarantined: boolean }) {
      const reply = await store.getCollection({ principal, ...input });
      return {
        collection: toCollectionView(reply.collection),
        members: reply.members.map(toMemberView),
        nextCursor: reply.nextCursor,
      };
    },
  };
}

/** Adding, removing and reordering a collection's members. */
function membershipEdits(store: CollectionsServiceClient) {
  return {
    async add(
      principal: Principal,
      input: { id: string; entryIds: string[]; position: number; idempotency?: Idempotency | undefined },
    ) {
      const reply = await store.addToCollection({
        principal,
        id: input.id,
        entryIds: input.entryIds,
        position: input.position,
        ...idempotent(input.idempotency),
      });
      return {
        collection: toCollectionView(reply.collection),
        added_ids: reply.addedIds,
        already_member_ids: reply.alreadyMemberIds,
        now_shared_ids: reply.nowSharedIds,
        not_opened_ids: reply.notOpenedIds,
      };
    },

    async remove(
      principal: Principal,
      input: { id: string; entryIds: string[]; idempotency?: Idempotency | undefined },
    ) {
      const reply = await store.removeFromCollection({
        principal,
        id: input.id,
        entryIds: input.entryIds,
        ...idempotent(input.idempotency),
      });
      return { collection: toCollectionView(reply.collection), removed_ids: reply.removedIds };
    },

    async reorder(
      principal: Principal,
      input: { id: string; entryIds: string[]; idempotency?: Idempotency | undefined },
    ) {
      const reply = await store.reorderCollection({
        principal,
        id: input.id,
        entryIds: input.entryIds,
        ...idempotent(input.idempotency),
      });
      return toCollectionView(reply.collection);
    },
  };
}

/** The collections client over a CollectionsService connection. */
export function createCollectionsClient(store: CollectionsServiceClient) {
  return { ...collectionEdits(store), ...collectionReads(store), ...membershipEdits(store) };
}

export type CollectionsClient = ReturnType<typeof createCollectionsClient>;
