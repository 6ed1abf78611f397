// The store's gRPC transport for named memories: MemoriesService handlers translating proto messages to memory domain calls and back.
import type { MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import {
  invalidArgument,
  trustStateToProto,
  visibilityFromProto,
  visibilityToProto,
  type ServiceImplementation,
} from "@context-hub/common";
import { storeV1 } from "@context-hub/proto";
import type { MemoryService } from "./memories/memories.js";
import type {
  DeleteMemoryResult,
  MemoryHistory,
  MemoryRecord,
  MemoryRevision,
  MemorySummary,
  MemoryValueType,
  PutMemoryResult,
} from "./memories/memory-model.js";
import { toGenerated } from "./entries-messages.js";
import { idempotentResponse, toDate, toPrincipal } from "./messages.js";

function toMemoryMessage(memory: MemoryRecord | MemorySummary): MessageInitShape<typeof storeV1.MemorySchema> {
  return {
    id: memory.id,
    namespace: memory.namespace,
    key: memory.key,
    owner: memory.owner,
    visibility: visibilityToProto(memory.visibility),
    kind: memory.kind,
    tags: memory.tags,
    valueType: memory.valueType,
    value: memory.value,
    contentHash: memory.contentHash,
    version: memory.version,
    createdAt: timestampFromDate(memory.createdAt),
    updatedAt: timestampFromDate(memory.updatedAt),
    updatedBy: memory.updatedBy,
    valueChars: "valueChars" in memory ? memory.valueChars : memory.value.length,
    truncated: "truncated" in memory ? memory.truncated : false,
    trustState: trustStateToProto(memory.trust.state),
    trustReasons: memory.trust.reasons,
  };
}

function toRevisionMessage(revision: MemoryRevision): MessageInitShape<typeof storeV1.MemoryRevisionSchema> {
  return {
    version: revision.version,
    change: revision.change,
    visibility: visibilityToProto(revision.visibility),
    kind: revision.kind,
    tags: revision.tags,
    valueType: revision.valueType,
    value: revision.value,
    contentHash: revision.contentHash,
    writtenBy: revision.writtenBy,
    writtenAt: timestampFromDate(revision.writtenAt),
    reason: revision.reason,
    redacted: revision.redacted,
    trustState: trustStateToProto(revision.trust.state),
    trustReasons: revision.trust.reasons,
    ...(revision.review === null
      ? {}
      : {
          reviewedBy: revision.review.by,
          reviewedAt: timestampFromDate(revision.review.at),
          reviewNote: revision.review.note,
        }),
  };
}

function toValueType(value: string): MemoryValueType {
  if (value === "" || value === "text") return "text";
  if (value === "json") return "json";
  throw invalidArgument(`value_type must be "text" or "json" (got ${JSON.stringify(value)})`);
}

/** A memory's history as GetMemoryHistory answers it, with its tombstone when it is deleted. */
function toHistoryResponse(history: MemoryHistory): MessageInitShape<typeof storeV1.GetMemoryHistoryResponseSchema> {
  return {
    id: history.id,
    namespace: history.namespace,
    key: history.key,
    owner: history.owner,
    latestVersion: history.latestVersion,
    revisions: history.revisions.map(toRevisionMessage),
    hasMore: history.hasMore,
    ...(history.tombstone === undefined
      ? {}
      : {
          tombstone: {
            deletedBy: history.tombstone.deletedBy,
            deletedAt: timestampFromDate(history.tombstone.deletedAt),
            reason: history.tombstone.reason,
          },
        }),
  };
}

const putResponse = idempotentResponse(storeV1.PutMemoryResponseSchema, (result: PutMemoryResult) => ({
  memory: toMemoryMessage(result.memory),
  created: result.created,
}));
const deleteResponse = idempotentResponse(storeV1.DeleteMemoryResponseSchema, (result: DeleteMemoryResult) => ({
  ...result,
}));

/** The MemoriesService implementation over the memory domain. */
export function createMemoriesHandlers(memories: MemoryService): ServiceImplementation<typeof storeV1.MemoriesService> {
  return {
    async putMemory(request) {
      const outcome = await memories.put(toPrincipal(request.principal), {
        namespace: request.namespace,
        key: request.key,
        owner: request.owner,
        valueType: toValueType(request.valueType),
        value: request.value,
        kind: request.kind,
        tags: request.tags,
        visibility: visibilityFromProto(request.visibility, "visibility"),
        expectedVersion: request.expectedVersion,
        generated: toGenerated(request.generated),
        idempotency: putResponse.key(request.idempotency),
      });
      return putResponse.respond(outcome);
    },

    async getMemory(request) {
      const memory = await memories.get(toPrincipal(request.principal), {
        namespace: request.namespace,
        key: request.key,
        owner: request.owner,
        version: request.version,
        asOf: toDate(request.asOf),
        includeQuarantined: request.includeQuarantined,
      });
      return { memory: toMemoryMessage(memory) };
    },

    async listMemories(request) {
      const page = await memories.list(toPrincipal(request.principal), {
        namespace: request.namespace,
        keyPrefix: request.keyPrefix,
        kind: request.kind,
        tag: request.tag,
        owner: request.owner,
        limit: request.limit,
        cursor: request.cursor,
        includeQuarantined: request.includeQuarantined,
      });
      return { memories: page.memories.map(toMemoryMessage), nextCursor: page.nextCursor };
    },

    async getMemoryHistory(request) {
      const history = await memories.history(toPrincipal(request.principal), {
        namespace: request.namespace,
        key: request.key,
        owner: request.owner,
        limit: request.limit,
        offset: request.offset,
      });
      return toHistoryResponse(history);
    },

    async deleteMemory(request) {
      const outcome = await memories.delete(toPrincipal(request.principal), {
        namespace: request.namespace,
        key: request.key,
        owner: request.owner,
        reason: request.reason,
        expectedVersion: request.expectedVersion,
        idempotency: deleteResponse.key(request.idempotency),
      });
      return deleteResponse.respond(outcome);
    },
  };
}
