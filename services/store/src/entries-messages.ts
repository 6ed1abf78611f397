/**
 * Conversions between EntriesService's own protobuf messages (new entries,
 * what was generated for them, updates, acknowledgements, thread and
 * statistics replies) and the entries domain's types.
 */
import type { MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { sourceFromProto, trustStateToProto, vectorFromBytes, visibilityFromProto } from "@context-hub/common";
import type { storeV1 } from "@context-hub/proto";
import type { ItemResult } from "./model/items.js";
import type {
  EntryAck,
  EntryStatistics,
  EntryUpdateInput,
  GeneratedInput,
  NewEntryInput,
  ThreadPage,
} from "./model/entry-model.js";
import type { PromptArgumentInput } from "./model/prompt-arguments.js";
import { toDate, toItemErrorMessage } from "./messages.js";

function toImages(images: readonly storeV1.Image[]): { mimeType: string; data: Uint8Array }[] {
  return images.map((image) => ({ mimeType: image.mimeType, data: image.data }));
}

function toPromptArgumentInputs(list: readonly storeV1.PromptArgument[]): PromptArgumentInput[] {
  return list.map((argument) => ({
    name: argument.name,
    description: argument.description,
    required: argument.required,
  }));
}

export function toNewEntry(entry: storeV1.NewEntry | undefined, field: string): NewEntryInput | undefined {
  if (entry === undefined) return undefined;
  return {
    threadId: entry.threadId,
    source: sourceFromProto(entry.source, `${field}.source`),
    text: entry.text,
    metadata: entry.metadata,
    tags: entry.tags,
    images: toImages(entry.images),
    visibility: visibilityFromProto(entry.visibility, `${field}.visibility`),
    validFrom: toDate(entry.validFrom),
    validTo: toDate(entry.validTo),
    kind: entry.kind,
    title: entry.title,
    promptArguments: toPromptArgumentInputs(entry.promptArguments),
    artifacts: entry.artifacts,
    promptName: entry.promptName,
  };
}

export function toGenerated(generated: storeV1.Generated | undefined): GeneratedInput | undefined {
  if (generated === undefined) return undefined;
  return {
    embeddingModel: generated.embeddingModel,
    embeddingDimension: generated.embeddingDimension,
    chunks: generated.chunks.map((chunk, index) => ({
      ordinal: chunk.ordinal,
      span: chunk.span,
      vector: vectorFromBytes(chunk.vector, `generated.chunks[${index}].vector`),
    })),
    summary: generated.summary,
    nodeSummaries: generated.nodeSummaries.map((node) => ({
      nodeId: node.nodeId,
      heading: node.heading,
      level: node.level,
      span: node.span,
      summary: node.summary,
    })),
    textHash: generated.textHash,
  };
}

export function toEntryUpdate(update: storeV1.EntryUpdate, index: number): EntryUpdateInput {
  return {
    id: update.id,
    expectedVersion: update.expectedVersion,
    text: update.text,
    metadata: update.metadata,
    tags: update.tags?.tags,
    images: update.images === undefined ? undefined : toImages(update.images.images),
    visibility: visibilityFromProto(update.visibility, `updates[${index}].visibility`),
    generated: toGenerated(update.generated),
    restoredFromVersion: update.restoredFromVersion,
    validity:
      update.validity === undefined
        ? undefined
        : { validFrom: toDate(update.validity.validFrom), validTo: toDate(update.validity.validTo) },
    kind: update.kind,
    title: update.title,
    promptArguments:
      update.promptArguments === undefined ? undefined : toPromptArgumentInputs(update.promptArguments.arguments),
    artifacts: update.artifacts?.sha256,
    promptName: update.promptName,
  };
}

export function toAckMessage(ack: EntryAck): MessageInitShape<typeof storeV1.EntryAckSchema> {
  return {
    id: ack.id,
    version: ack.version,
    contentHash: ack.contentHash,
    deduplicated: ack.deduplicated,
    createdAt: timestampFromDate(ack.createdAt),
    updatedAt: timestampFromDate(ack.updatedAt),
    previouslyDeleted: ack.previouslyDeleted,
    trustState: trustStateToProto(ack.trust.state),
    trustReasons: ack.trust.reasons,
  };
}

/** `{ ack }` or `{ error }` for one item. */
export function toItemOutcome(result: ItemResult<EntryAck>): {
  ack?: MessageInitShape<typeof storeV1.EntryAckSchema>;
  error?: MessageInitShape<typeof storeV1.ItemErrorSchema>;
} {
  return result.ok ? { ack: toAckMessage(result.value) } : { error: toItemErrorMessage(result.error) };
}

/** A page of threads as ListThreads answers it. */
export function toThreadsResponse(page: ThreadPage): MessageInitShape<typeof storeV1.ListThreadsResponseSchema> {
  return {
    threads: page.threads.map((thread) => ({
      threadId: thread.threadId,
      entryCount: thread.entryCount,
      userEntries: thread.userEntries,
      agentEntries: thread.agentEntries,
      firstAt: timestampFromDate(thread.firstAt),
      lastAt: timestampFromDate(thread.lastAt),
    })),
    hasMore: page.hasMore,
    total: page.total,
  };
}

/** Counts as GetStatistics answers them; the oldest and newest times are left out when there is no entry. */
export function toStatisticsResponse(
  statistics: EntryStatistics,
): MessageInitShape<typeof storeV1.GetStatisticsResponseSchema> {
  return {
    entries: BigInt(statistics.entries),
    threads: BigInt(statistics.threads),
    userEntries: BigInt(statistics.userEntries),
    agentEntries: BigInt(statistics.agentEntries),
    multimodalEntries: BigInt(statistics.multimodalEntries),
    images: BigInt(statistics.images),
    chunks: BigInt(statistics.chunks),
    textBytes: BigInt(statistics.textBytes),
    ownedEntries: BigInt(statistics.ownedEntries),
    ...(statistics.oldestAt === undefined ? {} : { oldestAt: timestampFromDate(statistics.oldestAt) }),
    ...(statistics.newestAt === undefined ? {} : { newestAt: timestampFromDate(statistics.newestAt) }),
    daily: statistics.daily.map((day) => ({
      date: day.date,
      created: BigInt(day.created),
      createdByUsers: BigInt(day.createdByUsers),
      createdByAgents: BigInt(day.createdByAgents),
      unverified: BigInt(day.byTrustState.unverified),
      verified: BigInt(day.byTrustState.verified),
      quarantined: BigInt(day.byTrustState.quarantined),
      rejected: BigInt(day.byTrustState.rejected),
      writes: BigInt(day.writes),
    })),
  };
}
