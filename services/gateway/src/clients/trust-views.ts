/**
 * How trust, history, review and audit data is shown to MCP callers:
 * snake_case JSON, ISO timestamps, plain strings for enums — the same
 * conventions as entry-views.ts.
 */
import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import type { storeV1 } from "@context-hub/proto";
import { fromProtoSource, fromProtoTrustState, fromProtoVisibility, toTrustFields } from "./proto-enums.js";
import { toPromptArgumentViews } from "./entry-views.js";

const iso = (timestamp: Timestamp | undefined) =>
  timestamp === undefined ? null : timestampDate(timestamp).toISOString();

/** The memory a mirror entry (kind `memory`) shows, named by its metadata; null for any other entry. */
function mirroredMemoryOf(entry: storeV1.Entry) {
  if (entry.kind !== "memory") return null;
  const metadata = entry.metadata ?? {};
  const text = (value: unknown) => (typeof value === "string" ? value : "");
  return {
    namespace: text(metadata["memory_namespace"]),
    key: text(metadata["memory_key"]),
    owner: text(metadata["memory_owner"]),
    version: typeof metadata["memory_version"] === "number" ? metadata["memory_version"] : 0,
  };
}

/** A review queue item: the full entry a reviewer judges, with who wrote it and its last review; a memory's value is marked as one. */
export function toReviewItemView(entry: storeV1.Entry) {
  return {
    id: entry.id,
    thread_id: entry.threadId,
    source: fromProtoSource(entry.source),
    owner: entry.owner,
    updated_by: entry.updatedBy,
    visibility: fromProtoVisibility(entry.visibility),
    version: entry.version,
    kind: entry.kind,
    memory: mirroredMemoryOf(entry),
    ...toTrustFields(entry),
    text: entry.text,
    summary: entry.summary,
    metadata: entry.metadata ?? {},
    tags: entry.tags,
    created_at: iso(entry.createdAt),
    updated_at: iso(entry.updatedAt),
    reviewed_by: entry.reviewedBy === "" ? null : entry.reviewedBy,
    reviewed_at: iso(entry.reviewedAt),
    review_note: entry.reviewNote === "" ? null : entry.reviewNote,
  };
}

/** One version of an entry's history. */
export function toVersionView(version: storeV1.EntryVersion) {
  return {
    version: version.version,
    current: version.current,
    redacted: version.redacted,
    text: version.text,
    // A redacted version's hash would confirm a guess of its text: it is left out with the text.
    ...(version.redacted || version.contentHash === "" ? {} : { content_hash: version.contentHash }),
    summary: version.summary,
    metadata: version.metadata ?? {},
    tags: version.tags,
    visibility: fromProtoVisibility(version.visibility),
    trust_state: fromProtoTrustState(version.trustState),
    change: version.change,
    restored_from: version.restoredFrom === 0 ? null : version.restoredFrom,
    written_by: version.writtenBy,
    written_at: iso(version.writtenAt),
    superseded_by: version.supersededBy === "" ? null : version.supersededBy,
    superseded_at: iso(version.supersededAt),
    valid_from: iso(version.validFrom),
    valid_to: iso(version.validTo),
    kind: version.kind,
    title: version.title === "" ? null : version.title,
    prompt_arguments: toPromptArgumentViews(version.promptArguments),
    artifacts: version.artifacts,
  };
}

/** What is left of a deleted entry. */
export function toTombstoneView(tombstone: storeV1.Tombstone) {
  return {
    content_hash: tombstone.contentHash,
    deleted_by: tombstone.deletedBy,
    deleted_at: iso(tombstone.deletedAt),
    reason: tombstone.reason,
    history_purged_at: iso(tombstone.historyPurgedAt),
  };
}

/** One audit record. */
export function toAuditRecordView(record: storeV1.AuditRecord) {
  return {
    seq: Number(record.seq),
    id: record.id,
    at: iso(record.at),
    actor: record.actor,
    action: record.action,
    outcome: record.outcome,
    target_ids: record.targetIds,
    before_hashes: record.beforeHashes,
    after_hashes: record.afterHashes,
    request_id: record.requestId,
    details: record.details ?? {},
    previous_hash: record.previousHash,
    hash: record.hash,
  };
}
