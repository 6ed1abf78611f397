// The store's gRPC transport: StoreService handlers translating proto messages to entry-service calls and back.
import { toJson, type MessageInitShape } from "@bufbuild/protobuf";
import { timestampDate, timestampFromDate, ValueSchema, type Timestamp } from "@bufbuild/protobuf/wkt";
import { invalidArgument, type ServiceImplementation } from "@context-hub/common";
import { commonV1, storeV1 } from "@context-hub/proto";
import type { EntryAck, EntryService, JsonValue, NodeSummary, Source, StoredEntry, Visibility } from "./entries.js";
import type { Principal } from "./principal.js";

function toPrincipal(principal: commonV1.Principal | undefined): Principal | undefined {
  if (principal === undefined) return undefined;
  return { tenant: principal.tenant, subject: principal.subject, groups: [...principal.groups], scopes: [...principal.scopes] };
}

function toSource(source: commonV1.Source, field: string): Source | undefined {
  switch (source) {
    case commonV1.Source.USER:
      return "user";
    case commonV1.Source.AGENT:
      return "agent";
    case commonV1.Source.UNSPECIFIED:
      return undefined;
    default:
      throw invalidArgument(`${field} ${String(source)} is not a known source`);
  }
}

function fromSource(source: Source): commonV1.Source {
  return source === "user" ? commonV1.Source.USER : commonV1.Source.AGENT;
}

function toVisibility(visibility: commonV1.Visibility): Visibility | undefined {
  switch (visibility) {
    case commonV1.Visibility.PRIVATE:
      return "private";
    case commonV1.Visibility.SHARED:
      return "shared";
    case commonV1.Visibility.TENANT:
      return "tenant";
    case commonV1.Visibility.UNSPECIFIED:
      return undefined;
    default:
      throw invalidArgument(`entry.visibility ${String(visibility)} is not a known visibility`);
  }
}

const visibilityOf: Record<Visibility, commonV1.Visibility> = {
  private: commonV1.Visibility.PRIVATE,
  shared: commonV1.Visibility.SHARED,
  tenant: commonV1.Visibility.TENANT,
};

function toDate(timestamp: Timestamp | undefined): Date | undefined {
  return timestamp === undefined ? undefined : timestampDate(timestamp);
}

function toMetadataValue(condition: storeV1.MetadataCondition, index: number): JsonValue | undefined {
  if (condition.value === undefined) return undefined;
  try {
    return toJson(ValueSchema, condition.value) as JsonValue;
  } catch {
    throw invalidArgument(`filter.metadata[${index}].value holds no JSON value`);
  }
}

function toAckMessage(ack: EntryAck): MessageInitShape<typeof storeV1.EntryAckSchema> {
  return {
    id: ack.id,
    version: ack.version,
    contentHash: ack.contentHash,
    deduplicated: ack.deduplicated,
    createdAt: timestampFromDate(ack.createdAt),
    updatedAt: timestampFromDate(ack.updatedAt),
  };
}

function toNodeSummaryMessage(node: NodeSummary): MessageInitShape<typeof commonV1.NodeSummarySchema> {
  return { nodeId: node.nodeId, heading: node.heading, level: node.level, span: { start: node.span.start, end: node.span.end }, summary: node.summary };
}

function toEntryMessage(entry: StoredEntry): MessageInitShape<typeof storeV1.EntrySchema> {
  return {
    id: entry.id,
    threadId: entry.threadId,
    source: fromSource(entry.source),
    owner: entry.owner,
    visibility: visibilityOf[entry.visibility],
    text: entry.text,
    preview: entry.preview,
    textLength: entry.textLength,
    contentHash: entry.contentHash,
    metadata: entry.metadata,
    tags: entry.tags,
    summary: entry.summary,
    version: entry.version,
    createdAt: timestampFromDate(entry.createdAt),
    updatedAt: timestampFromDate(entry.updatedAt),
    images: entry.images.map((image) => ({
      ordinal: image.ordinal,
      mimeType: image.mimeType,
      byteSize: image.byteSize,
      ...(image.data === undefined ? {} : { data: image.data }),
    })),
    contentType: entry.contentType,
    nodeSummaries: entry.nodeSummaries.map(toNodeSummaryMessage),
    embeddingModel: entry.embeddingModel,
    chunkCount: entry.chunkCount,
  };
}

/** The StoreService implementation over the entry service. */
export function createStoreHandlers(entries: EntryService): ServiceImplementation<typeof storeV1.StoreService> {
  return {
    async findDuplicate(request) {
      const id = await entries.findDuplicate(toPrincipal(request.principal), {
        threadId: request.threadId,
        source: toSource(request.source, "source"),
        contentHash: request.contentHash,
      });
      return { entryId: id ?? "" };
    },

    async commit(request) {
      const { entry, generated } = request;
      const ack = await entries.commit(
        toPrincipal(request.principal),
        entry === undefined
          ? undefined
          : {
              threadId: entry.threadId,
              source: toSource(entry.source, "entry.source"),
              text: entry.text,
              metadata: entry.metadata,
              tags: entry.tags,
              images: entry.images.map((image) => ({ mimeType: image.mimeType, data: image.data })),
              visibility: toVisibility(entry.visibility),
            },
        generated === undefined
          ? undefined
          : {
              embeddingModel: generated.embeddingModel,
              embeddingDimension: generated.embeddingDimension,
              chunks: generated.chunks.map((chunk) => ({ ordinal: chunk.ordinal, span: chunk.span, vector: chunk.vector })),
              summary: generated.summary,
              nodeSummaries: generated.nodeSummaries.map((node) => ({
                nodeId: node.nodeId,
                heading: node.heading,
                level: node.level,
                span: node.span,
                summary: node.summary,
              })),
            },
      );
      return { ack: toAckMessage(ack) };
    },

    async getEntries(request) {
      const result = await entries.getEntries(toPrincipal(request.principal), { ids: request.ids, includeImages: request.includeImages });
      return { entries: result.entries.map(toEntryMessage), missing: result.missing };
    },

    async listEntries(request) {
      const { filter } = request;
      const result = await entries.listEntries(toPrincipal(request.principal), {
        filter:
          filter === undefined
            ? undefined
            : {
                threadId: filter.threadId,
                source: toSource(filter.source, "filter.source"),
                tags: filter.tags,
                metadata: filter.metadata.map((condition, index) => ({ key: condition.key, value: toMetadataValue(condition, index) })),
                createdFrom: toDate(filter.createdFrom),
                createdTo: toDate(filter.createdTo),
                contentType: filter.contentType,
              },
        limit: request.limit,
        offset: request.offset,
      });
      return { entries: result.entries.map(toEntryMessage), hasMore: result.hasMore };
    },
  };
}
