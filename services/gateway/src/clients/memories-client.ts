/** Named memories as the tools ask for them, over MemoriesService: proto built and read here, answers in the tools' snake_case. */
import { timestampDate, timestampFromDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import { visibilityFromProto, visibilityToProto, type VisibilityName } from "@context-hub/common";
import type { storeV1 } from "@context-hub/proto";
import type { Idempotency } from "../idempotency.js";
import type { Generated } from "./generation-client.js";
import type { Principal } from "../principal.js";
import type { MemoriesServiceClient } from "./peers.js";
import { toMemoryTrustFields } from "./proto-enums.js";

const iso = (timestamp: Timestamp | undefined) =>
  timestamp === undefined ? null : timestampDate(timestamp).toISOString();

/** Which memory a call names; empty strings take the defaults (the caller's namespace, the caller's own memory). */
export interface MemoryNameInput {
  namespace: string;
  key: string;
  owner: string;
}

export interface PutMemoryInput extends MemoryNameInput {
  valueType: "text" | "json";
  value: string;
  kind: string;
  tags: string[];
  visibility: VisibilityName | undefined;
  expectedVersion: number | undefined;
  idempotency: Idempotency | undefined;
  /** What was generated for the value's text before the call, for the memory's mirror entry (see `mirrorTextOf`). */
  generated: Generated | undefined;
}

/**
 * The text a memory's mirror entry holds, which search finds and which the
 * value's chunks and embeddings are generated for: a text value as given, a
 * JSON value as its normalised JSON text (as the store keeps it). Undefined
 * for a value the store will refuse (empty, or not JSON), which needs none.
 */
export function mirrorTextOf(valueType: "text" | "json", value: string): string | undefined {
  if (valueType === "text") return value === "" ? undefined : value;
  try {
    return JSON.stringify(JSON.parse(value));
  } catch {
    return undefined;
  }
}

export interface ListMemoriesInput {
  namespace: string;
  keyPrefix: string;
  kind: string;
  tag: string;
  owner: string;
  limit: number;
  cursor: string;
  includeQuarantined: boolean;
}

/**
 * A memory as a tool returns it. Its value is `text` (for a JSON value, its
 * JSON text), so the untrusted-data fence that wraps every stored entry's
 * text wraps it too.
 */
function toMemoryView(memory: storeV1.Memory) {
  return {
    id: memory.id,
    namespace: memory.namespace,
    key: memory.key,
    owner: memory.owner,
    visibility: visibilityFromProto(memory.visibility, "visibility") ?? "shared",
    kind: memory.kind,
    tags: memory.tags,
    value_type: memory.valueType === "json" ? ("json" as const) : ("text" as const),
    text: memory.value,
    value_chars: memory.valueChars,
    truncated: memory.truncated,
    content_hash: memory.contentHash,
    version: memory.version,
    created_at: iso(memory.createdAt),
    updated_at: iso(memory.updatedAt),
    updated_by: memory.updatedBy,
    ...toMemoryTrustFields(memory),
  };
}

export type MemoryView = ReturnType<typeof toMemoryView>;

function toRevisionView(id: string, revision: storeV1.MemoryRevision) {
  return {
    id,
    version: revision.version,
    change: revision.change === "delete" ? ("delete" as const) : ("put" as const),
    visibility: visibilityFromProto(revision.visibility, "visibility") ?? "shared",
    kind: revision.kind,
    tags: revision.tags,
    value_type: revision.valueType === "json" ? ("json" as const) : ("text" as const),
    text: revision.value,
    content_hash: revision.contentHash,
    written_by: revision.writtenBy,
    written_at: iso(revision.writtenAt),
    reason: revision.reason,
    redacted: revision.redacted,
    ...toMemoryTrustFields(revision),
    reviewed_by: revision.reviewedBy === "" ? null : revision.reviewedBy,
    reviewed_at: iso(revision.reviewedAt),
    review_note: revision.reviewNote === "" ? null : revision.reviewNote,
  };
}

/** The memories client over a MemoriesService connection. */
export function createMemoriesClient(store: MemoriesServiceClient) {
  return {
    /** Creates or replaces a memory's value; `created` when there was none (or only a tombstone). */
    async put(principal: Principal, input: PutMemoryInput) {
      const reply = await store.putMemory({
        principal,
        namespace: input.namespace,
        key: input.key,
        owner: input.owner,
        valueType: input.valueType,
        value: input.value,
        kind: input.kind,
        tags: input.tags,
        visibility: visibilityToProto(input.visibility),
        ...(input.expectedVersion === undefined ? {} : { expectedVersion: input.expectedVersion }),
        ...(input.idempotency === undefined ? {} : { idempotency: input.idempotency }),
        ...(input.generated === undefined ? {} : { generated: input.generated }),
      });
      return { memory: toMemoryView(reply.memory!), created: reply.created };
    },

    /** The current value, or that of `version` or of the instant `asOf`. */
    async get(
      principal: Principal,
      name: MemoryNameInput,
      at: { version: number; asOf: Date | undefined; includeQuarantined: boolean },
    ) {
      const reply = await store.getMemory({
        principal,
        ...name,
        version: at.version,
        includeQuarantined: at.includeQuarantined,
        ...(at.asOf === undefined ? {} : { asOf: timestampFromDate(at.asOf) }),
      });
      return toMemoryView(reply.memory!);
    },

    /** One page of the memories the caller can see. */
    async list(principal: Principal, input: ListMemoriesInput) {
      const reply = await store.listMemories({ principal, ...input });
      return { memories: reply.memories.map(toMemoryView), nextCursor: reply.nextCursor };
    },

    /** A memory's revisions, newest first, with its tombstone when it is deleted. */
    async history(principal: Principal, name: MemoryNameInput, page: { limit: number; offset: number }) {
      const reply = await store.getMemoryHistory({ principal, ...name, ...page });
      return {
        id: reply.id,
        namespace: reply.namespace,
        key: reply.key,
        owner: reply.owner,
        latestVersion: reply.latestVersion,
        revisions: reply.revisions.map((revision) => toRevisionView(reply.id, revision)),
        hasMore: reply.hasMore,
        tombstone:
          reply.tombstone === undefined
            ? null
            : {
                deleted_by: reply.tombstone.deletedBy,
                deleted_at: iso(reply.tombstone.deletedAt),
                reason: reply.tombstone.reason,
              },
      };
    },

    /** Deletes a memory to a tombstone; returns the version the delete was recorded as. */
    async delete(
      principal: Principal,
      name: MemoryNameInput,
      input: { reason: string; expectedVersion: number | undefined; idempotency: Idempotency | undefined },
    ) {
      const reply = await store.deleteMemory({
        principal,
        ...name,
        reason: input.reason,
        ...(input.expectedVersion === undefined ? {} : { expectedVersion: input.expectedVersion }),
        ...(input.idempotency === undefined ? {} : { idempotency: input.idempotency }),
      });
      return { id: reply.id, namespace: reply.namespace, key: reply.key, owner: reply.owner, version: reply.version };
    },
  };
}

export type MemoriesClient = ReturnType<typeof createMemoriesClient>;
