/**
 * Conversions between StoreService protobuf messages and the store's domain
 * types, for the transport (server.ts). Enum values a peer sends that this
 * build does not know are INVALID_ARGUMENT naming the field.
 */
import type { SearchFilterInput } from "./model/search-filter.js";
import { create, toBinary, toJson, type DescMessage, type JsonObject, type MessageInitShape } from "@bufbuild/protobuf";
import { timestampDate, timestampFromDate, ValueSchema, type Timestamp, type Value } from "@bufbuild/protobuf/wkt";
import {
  granteeKindFromProto,
  granteeKindToProto,
  invalidArgument,
  permissionToProto,
  sourceFromProto,
  sourceToProto,
  trustStateToProto,
  vectorFromBytes,
  visibilityFromProto,
  visibilityToProto,
} from "@context-hub/common";
import { type commonV1, storeV1 } from "@context-hub/proto";
import type { ApiKeyInput, ApiKeyRecord } from "./keys/api-keys.js";
import type { AuditFilter, AuditRecord, ChainReport } from "./audit/audit.js";
import type { EntryHistory, EntryVersionRecord, TombstoneRecord } from "./history/history.js";
import type { ItemError, ItemResult } from "./entries/entries.js";
import type { EntryAck, EntryUpdateInput, GeneratedInput, JsonValue, NewEntryInput, NodeSummary, StoredEntry } from "./model/entry-model.js";
import type { IdempotencyState } from "./idempotency/idempotency.js";
import type { Principal } from "./model/principal.js";
import type { MetadataOperator } from "./model/search-filter.js";
import type { GranteeInput } from "./sharing/sharing.js";
import type { GrantRecord } from "./model/sharing-model.js";

export function toPrincipal(principal: commonV1.Principal | undefined): Principal | undefined {
  if (principal === undefined) return undefined;
  return { tenant: principal.tenant, subject: principal.subject, groups: [...principal.groups], scopes: [...principal.scopes] };
}

export function toGrantees(grantees: readonly storeV1.Grantee[]): GranteeInput[] {
  return grantees.map((grantee, index) => ({ kind: granteeKindFromProto(grantee.kind, `grantees[${index}].kind`), name: grantee.name }));
}

export function toDate(timestamp: Timestamp | undefined): Date | undefined {
  return timestamp === undefined ? undefined : timestampDate(timestamp);
}

function fromDate(date: Date | undefined): Timestamp | undefined {
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
  };
}

function toImages(images: readonly storeV1.Image[]): { mimeType: string; data: Uint8Array }[] {
  return images.map((image) => ({ mimeType: image.mimeType, data: image.data }));
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
  };
}

export function toGenerated(generated: storeV1.Generated | undefined): GeneratedInput | undefined {
  if (generated === undefined) return undefined;
  return {
    embeddingModel: generated.embeddingModel,
    embeddingDimension: generated.embeddingDimension,
    chunks: generated.chunks.map((chunk, index) => ({ ordinal: chunk.ordinal, span: chunk.span, vector: vectorFromBytes(chunk.vector, `generated.chunks[${index}].vector`) })),
    summary: generated.summary,
    nodeSummaries: generated.nodeSummaries.map((node) => ({ nodeId: node.nodeId, heading: node.heading, level: node.level, span: node.span, summary: node.summary })),
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
    validity: update.validity === undefined ? undefined : { validFrom: toDate(update.validity.validFrom), validTo: toDate(update.validity.validTo) },
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

export function toItemErrorMessage(error: ItemError): MessageInitShape<typeof storeV1.ItemErrorSchema> {
  return { code: error.code, message: error.message };
}

/** `{ ack }` or `{ error }` for one item. */
export function toItemOutcome(result: ItemResult<EntryAck>): { ack?: MessageInitShape<typeof storeV1.EntryAckSchema>; error?: MessageInitShape<typeof storeV1.ItemErrorSchema> } {
  return result.ok ? { ack: toAckMessage(result.value) } : { error: toItemErrorMessage(result.error) };
}

function toNodeSummaryMessage(node: NodeSummary): MessageInitShape<typeof commonV1.NodeSummarySchema> {
  return { nodeId: node.nodeId, heading: node.heading, level: node.level, span: { start: node.span.start, end: node.span.end }, summary: node.summary };
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
  };
}

function toVersionMessage(version: EntryVersionRecord): MessageInitShape<typeof storeV1.EntryVersionSchema> {
  return {
    version: version.version,
    current: version.current,
    redacted: version.redacted,
    text: version.text,
    contentHash: version.contentHash,
    metadata: version.metadata,
    tags: version.tags,
    summary: version.summary,
    visibility: visibilityToProto(version.visibility),
    trustState: trustStateToProto(version.trustState),
    writtenBy: version.writtenBy,
    writtenAt: timestampFromDate(version.writtenAt),
    supersededBy: version.supersededBy ?? "",
    supersededAt: fromDate(version.supersededAt),
    change: version.change,
    restoredFrom: version.restoredFrom ?? 0,
    validFrom: fromDate(version.validFrom),
    validTo: fromDate(version.validTo),
  };
}

function toTombstoneMessage(tombstone: TombstoneRecord): MessageInitShape<typeof storeV1.TombstoneSchema> {
  return {
    id: tombstone.id,
    threadId: tombstone.threadId,
    contentHash: tombstone.contentHash,
    owner: tombstone.owner,
    deletedBy: tombstone.deletedBy,
    deletedAt: timestampFromDate(tombstone.deletedAt),
    reason: tombstone.reason,
    historyPurgedAt: fromDate(tombstone.historyPurgedAt),
  };
}

export function toHistoryMessage(history: EntryHistory): MessageInitShape<typeof storeV1.GetEntryHistoryResponseSchema> {
  return {
    id: history.id,
    threadId: history.threadId,
    owner: history.owner,
    latestVersion: history.latestVersion,
    versions: history.versions.map(toVersionMessage),
    hasMore: history.hasMore,
    ...(history.tombstone === undefined ? {} : { tombstone: toTombstoneMessage(history.tombstone) }),
  };
}

export function toAuditFilter(filter: storeV1.AuditFilter | undefined): AuditFilter {
  const outcome = filter?.outcome ?? "";
  if (outcome !== "" && outcome !== "ok" && outcome !== "denied") throw invalidArgument('filter.outcome must be "ok", "denied" or empty');
  return {
    action: filter?.action,
    actor: filter?.actor,
    targetId: filter?.targetId,
    from: toDate(filter?.from),
    to: toDate(filter?.to),
    outcome: outcome === "" ? undefined : outcome,
  };
}

export function toAuditRecordMessage(record: AuditRecord): MessageInitShape<typeof storeV1.AuditRecordSchema> {
  return {
    seq: BigInt(record.seq),
    id: record.id,
    at: timestampFromDate(record.at),
    actor: record.actor,
    action: record.action,
    outcome: record.outcome,
    targetIds: record.targetIds,
    beforeHashes: record.beforeHashes,
    afterHashes: record.afterHashes,
    requestId: record.requestId,
    details: record.details as JsonObject,
    previousHash: record.previousHash,
    hash: record.hash,
    tenant: record.tenant,
  };
}

export function toChainReportMessage(report: ChainReport): MessageInitShape<typeof storeV1.AuditChainReportSchema> {
  return {
    tenant: report.tenant,
    records: BigInt(report.records),
    intact: report.intact,
    brokenSeq: BigInt(report.broken?.seq ?? 0),
    brokenId: report.broken?.id ?? "",
    problem: report.broken?.problem ?? "",
  };
}

export function toGrantMessage(grant: GrantRecord): MessageInitShape<typeof storeV1.GrantInfoSchema> {
  return {
    id: grant.id,
    entryId: grant.entryId ?? "",
    threadId: grant.threadId ?? "",
    grantee: { kind: granteeKindToProto(grant.grantee.kind), name: grant.grantee.name },
    permission: permissionToProto(grant.permission),
    grantor: grant.grantor,
    createdAt: timestampFromDate(grant.createdAt),
  };
}

export const idempotencyStateOf: Record<IdempotencyState, storeV1.CheckIdempotencyResponse_State> = {
  new: storeV1.CheckIdempotencyResponse_State.NEW,
  replay: storeV1.CheckIdempotencyResponse_State.REPLAY,
  conflict: storeV1.CheckIdempotencyResponse_State.CONFLICT,
};

export function toApiKeyInput(key: storeV1.ApiKey | undefined): ApiKeyInput | undefined {
  if (key === undefined) return undefined;
  // id, created_at and revoked_at are the store's to set; whatever the request holds there is ignored.
  return {
    hint: key.hint,
    tenant: key.tenant,
    subject: key.subject,
    groups: key.groups,
    scopes: key.scopes,
    description: key.description,
    expiresAt: toDate(key.expiresAt),
  };
}

export function toApiKeyMessage(key: ApiKeyRecord): MessageInitShape<typeof storeV1.ApiKeySchema> {
  return {
    id: key.id,
    hint: key.hint,
    tenant: key.tenant,
    subject: key.subject,
    groups: key.groups,
    scopes: key.scopes,
    description: key.description,
    expiresAt: fromDate(key.expiresAt),
    createdAt: timestampFromDate(key.createdAt),
    revokedAt: fromDate(key.revokedAt),
  };
}

/**
 * How a mutation's response is recorded with its idempotency key: the
 * response message's protobuf bytes, so a replay returns exactly what the
 * first call returned.
 */
export function encoderOf<S extends DescMessage, T>(schema: S, toResponse: (result: T) => MessageInitShape<S>): (result: T) => Uint8Array {
  return (result) => toBinary(schema, create(schema, toResponse(result)));
}
