/**
 * Conversions between the protobuf messages every store service shares
 * (callers, entries, filters, per-item errors, idempotent responses) and the
 * store's domain types. Each service's own messages are mapped in its
 * `*-server.ts`. Enum values a peer sends that this build does not know are
 * INVALID_ARGUMENT naming the field.
 */
import {
  create,
  fromBinary,
  toBinary,
  toJson,
  type DescMessage,
  type MessageInitShape,
  type MessageShape,
} from "@bufbuild/protobuf";
import { timestampDate, timestampFromDate, ValueSchema, type Timestamp, type Value } from "@bufbuild/protobuf/wkt";
import {
  invalidArgument,
  sourceFromProto,
  sourceToProto,
  trustStateToProto,
  visibilityToProto,
} from "@context-hub/common";
import { type commonV1, storeV1 } from "@context-hub/proto";
import type { ItemError } from "./model/items.js";
import type { Outcome } from "./idempotency/idempotency.js";
import type { JsonValue, NodeSummary, StoredEntry } from "./model/entry-model.js";
import type { Principal } from "./model/principal.js";
import type { PromptArgument } from "./model/prompt-arguments.js";
import type { MetadataOperator, SearchFilterInput } from "./model/search-filter.js";

export function toPrincipal(principal: commonV1.Principal | undefined): Principal | undefined {
  if (principal === undefined) return undefined;
  return {
    tenant: principal.tenant,
    subject: principal.subject,
    groups: [...principal.groups],
    scopes: [...principal.scopes],
  };
}

export function toDate(timestamp: Timestamp | undefined): Date | undefined {
  return timestamp === undefined ? undefined : timestampDate(timestamp);
}

export function fromDate(date: Date | undefined): Timestamp | undefined {
  return date === undefined ? undefined : timestampFromDate(date);
}

const operatorOf: Record<number, MetadataOperator> = {
  [storeV1.MetadataOperator.UNSPECIFIED]: "eq",
  [storeV1.MetadataOperator.EQ]: "eq",
  [storeV1.MetadataOperator.NE]: "ne",
  [storeV1.MetadataOperator.GT]: "gt",
  [storeV1.MetadataOperator.GTE]: "gte",
  [storeV1.MetadataOperator.LT]: "lt",
  [storeV1.MetadataOperator.LTE]: "lte",
  [storeV1.MetadataOperator.IN]: "in",
  [storeV1.MetadataOperator.NOT_IN]: "not_in",
  [storeV1.MetadataOperator.EXISTS]: "exists",
  [storeV1.MetadataOperator.CONTAINS]: "contains",
  [storeV1.MetadataOperator.STARTS_WITH]: "starts_with",
  [storeV1.MetadataOperator.NOT_EXISTS]: "not_exists",
  [storeV1.MetadataOperator.ENDS_WITH]: "ends_with",
  [storeV1.MetadataOperator.IS_NULL]: "is_null",
  [storeV1.MetadataOperator.IS_NOT_NULL]: "is_not_null",
  [storeV1.MetadataOperator.ARRAY_CONTAINS]: "array_contains",
};

/** A metadata operator (unspecified compares for equality); INVALID_ARGUMENT for a value this build does not know. */
export function toMetadataOperator(operator: storeV1.MetadataOperator, field: string): MetadataOperator {
  const found = operatorOf[operator];
  if (found === undefined) throw invalidArgument(`${field} ${operator} is not a known value`);
  return found;
}

/** A metadata condition's JSON value; undefined when absent (the validation says whether the operator needs one). */
export function toMetadataValue(condition: { value?: Value | undefined }, index: number): JsonValue | undefined {
  if (condition.value === undefined) return undefined;
  try {
    return toJson(ValueSchema, condition.value) as JsonValue;
  } catch {
    throw invalidArgument(`filter.metadata[${index}].value holds no JSON value`);
  }
}

/** The filter every listing and search takes, as the domain's unvalidated input. */
export function toEntryFilter(filter: storeV1.EntryFilter | undefined): SearchFilterInput | undefined {
  if (filter === undefined) return undefined;
  return {
    threadId: filter.threadId,
    source: sourceFromProto(filter.source, "filter.source"),
    tagsAny: filter.tagsAny,
    tagsAll: filter.tagsAll,
    metadata: filter.metadata.map((condition, index) => ({
      key: condition.key,
      operator: toMetadataOperator(condition.operator, `filter.metadata[${index}].operator`),
      value: toMetadataValue(condition, index),
      caseSensitive: condition.caseSensitive,
    })),
    createdFrom: toDate(filter.createdFrom),
    createdTo: toDate(filter.createdTo),
    contentType: filter.contentType,
    includeQuarantined: filter.includeQuarantined,
    validAt: toDate(filter.validAt),
    asOf: toDate(filter.asOf),
    kinds: filter.kinds,
    titlePrefix: filter.titlePrefix,
    promptName: filter.promptName,
    ownOnly: filter.ownOnly,
    collectionId: filter.collectionId,
    excludeMemoryMirrors: filter.excludeMemoryMirrors,
  };
}

export function toItemErrorMessage(error: ItemError): MessageInitShape<typeof storeV1.ItemErrorSchema> {
  return { code: error.code, message: error.message };
}

function toNodeSummaryMessage(node: NodeSummary): MessageInitShape<typeof commonV1.NodeSummarySchema> {
  return {
    nodeId: node.nodeId,
    heading: node.heading,
    level: node.level,
    span: { start: node.span.start, end: node.span.end },
    summary: node.summary,
  };
}

/** Declared prompt arguments as messages (an absent description as empty). */
export function toPromptArgumentMessages(
  list: readonly PromptArgument[],
): MessageInitShape<typeof storeV1.PromptArgumentSchema>[] {
  return list.map((argument) => ({
    name: argument.name,
    description: argument.description ?? "",
    required: argument.required,
  }));
}

export function toEntryMessage(entry: StoredEntry): MessageInitShape<typeof storeV1.EntrySchema> {
  return {
    id: entry.id,
    threadId: entry.threadId,
    source: sourceToProto(entry.source),
    owner: entry.owner,
    visibility: visibilityToProto(entry.visibility),
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
    ...(entry.trust === undefined
      ? {}
      : {
          trustState: trustStateToProto(entry.trust.state),
          trustReasons: entry.trust.reasons,
          reviewedBy: entry.trust.reviewedBy ?? "",
          reviewedAt: fromDate(entry.trust.reviewedAt),
          reviewNote: entry.trust.reviewNote ?? "",
        }),
    updatedBy: entry.updatedBy ?? "",
    validFrom: fromDate(entry.validFrom),
    validTo: fromDate(entry.validTo),
    kind: entry.kind,
    title: entry.title ?? "",
    promptArguments: toPromptArgumentMessages(entry.promptArguments),
    artifacts: entry.artifacts ?? [],
    promptName: entry.promptName ?? "",
  };
}

/**
 * How a mutation's response is recorded with its idempotency key: the
 * response message's protobuf bytes, so a replay returns exactly what the
 * first call returned.
 */
export function encoderOf<S extends DescMessage, T>(
  schema: S,
  toResponse: (result: T) => MessageInitShape<S>,
): (result: T) => Uint8Array {
  return (result) => toBinary(schema, create(schema, toResponse(result)));
}

/**
 * One idempotent mutation's response mapping: `key` hands the domain the
 * caller's idempotency key with an encoder for the response recorded with
 * it; `respond` answers with the fresh result, or with exactly the bytes
 * recorded by the first call when this one is a replay.
 */
export function idempotentResponse<S extends DescMessage, T>(
  schema: S,
  toResponse: (result: T) => MessageInitShape<S>,
) {
  const encode = encoderOf(schema, toResponse);
  return {
    key: (idempotency: storeV1.Idempotency | undefined) =>
      idempotency === undefined ? undefined : { key: idempotency.key, fingerprint: idempotency.fingerprint, encode },
    respond: (outcome: Outcome<T>): MessageInitShape<S> | MessageShape<S> =>
      outcome.replayed ? fromBinary(schema, outcome.response) : toResponse(outcome.result),
  };
}
