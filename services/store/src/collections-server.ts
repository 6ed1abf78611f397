// The store's gRPC transport for collections: CollectionsService handlers translating proto messages to collection domain calls and back.
import type { MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ServiceImplementation } from "@context-hub/common";
import { storeV1 } from "@context-hub/proto";
import type { CollectionService } from "./collections/collections.js";
import type {
  AddToCollectionResult,
  CollectionChangeResult,
  CollectionMember,
  CollectionRecord,
  DeleteCollectionResult,
} from "./collections/collection-model.js";
import { idempotentResponse, toEntryMessage, toPrincipal } from "./messages.js";

function toCollectionMessage(collection: CollectionRecord): MessageInitShape<typeof storeV1.CollectionSchema> {
  return {
    id: collection.id,
    name: collection.name,
    description: collection.description,
    owner: collection.owner,
    version: collection.version,
    createdAt: timestampFromDate(collection.createdAt),
    updatedAt: timestampFromDate(collection.updatedAt),
    memberCount: collection.memberCount,
  };
}

function toMemberMessage(member: CollectionMember): MessageInitShape<typeof storeV1.CollectionMemberSchema> {
  return {
    entry: toEntryMessage(member.entry),
    position: member.position,
    addedAt: timestampFromDate(member.addedAt),
    addedBy: member.addedBy,
  };
}

const createResponse = idempotentResponse(storeV1.CreateCollectionResponseSchema, (result: CollectionRecord) => ({
  collection: toCollectionMessage(result),
}));
const updateResponse = idempotentResponse(storeV1.UpdateCollectionResponseSchema, (result: CollectionRecord) => ({
  collection: toCollectionMessage(result),
}));
const deleteResponse = idempotentResponse(storeV1.DeleteCollectionResponseSchema, (result: DeleteCollectionResult) => ({
  ...result,
}));
const addResponse = idempotentResponse(storeV1.AddToCollectionResponseSchema, (result: AddToCollectionResult) => ({
  collection: toCollectionMessage(result.collection),
  addedIds: result.addedIds,
  alreadyMemberIds: result.alreadyMemberIds,
  nowSharedIds: result.nowSharedIds,
  notOpenedIds: result.notOpenedIds,
}));
const removeResponse = idempotentResponse(
  storeV1.RemoveFromCollectionResponseSchema,
  (result: CollectionChangeResult) => ({
    collection: toCollectionMessage(result.collection),
    removedIds: result.removedIds,
  }),
);
const reorderResponse = idempotentResponse(
  storeV1.ReorderCollectionResponseSchema,
  (result: CollectionChangeResult) => ({ collection: toCollectionMessage(result.collection) }),
);

/** The CollectionsService implementation over the collection domain. */
export function createCollectionsHandlers(
  collections: CollectionService,
): ServiceImplementation<typeof storeV1.CollectionsService> {
  return {
    async createCollection(request) {
      const outcome = await collections.create(toPrincipal(request.principal), {
        name: request.name,
        description: request.description,
        idempotency: createResponse.key(request.idempotency),
      });
      return createResponse.respond(outcome);
    },

    async updateCollection(request) {
      const outcome = await collections.update(toPrincipal(request.principal), {
        id: request.id,
        name: request.name,
        description: request.description,
        expectedVersion: request.expectedVersion,
        idempotency: updateResponse.key(request.idempotency),
      });
      return updateResponse.respond(outcome);
    },

    async deleteCollection(request) {
      const outcome = await collections.delete(toPrincipal(request.principal), {
        id: request.id,
        expectedVersion: request.expectedVersion,
        idempotency: deleteResponse.key(request.idempotency),
      });
      return deleteResponse.respond(outcome);
    },

    async listCollections(request) {
      const page = await collections.list(toPrincipal(request.principal), {
        owner: request.owner,
        limit: request.limit,
        cursor: request.cursor,
      });
      return { collections: page.collections.map(toCollectionMessage), nextCursor: page.nextCursor };
    },

    async getCollection(request) {
      const result = await collections.get(toPrincipal(request.principal), {
        id: request.id,
        limit: request.limit,
        cursor: request.cursor,
        includeQuarantined: request.includeQuarantined,
      });
      return {
        collection: toCollectionMessage(result.collection),
        members: result.members.map(toMemberMessage),
        nextCursor: result.nextCursor,
      };
    },

    async addToCollection(request) {
      const outcome = await collections.add(toPrincipal(request.principal), {
        id: request.id,
        entryIds: request.entryIds,
        position: request.position,
        idempotency: addResponse.key(request.idempotency),
      });
      return addResponse.respond(outcome);
    },

    async removeFromCollection(request) {
      const outcome = await collections.remove(toPrincipal(request.principal), {
        id: request.id,
        entryIds: request.entryIds,
        idempotency: removeResponse.key(request.idempotency),
      });
      return removeResponse.respond(outcome);
    },

    async reorderCollection(request) {
      const outcome = await collections.reorder(toPrincipal(request.principal), {
        id: request.id,
        entryIds: request.entryIds,
        idempotency: reorderResponse.key(request.idempotency),
      });
      return reorderResponse.respond(outcome);
    },
  };
}
