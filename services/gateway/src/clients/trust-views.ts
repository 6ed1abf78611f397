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

/**
 * A review queue item: the full entry a reviewer judges, with who wrote it, the artifacts it links and its last
 * review; a memory's value is marked as one.
 */
export function toReviewItemView(entry: storeV1.Entry) {
  return {
    id: entry.id,
    thread_id: entry.threadId as string | null,
    source: fromProtoSource(entry.source) as ReturnType<typeof fromProtoSource> | null,
    owner: entry.owner,
    updated_by: entry.updatedBy,
    visibility: fromProtoVisibility(entry.visibility) as ReturnType<typeof fromProtoVisibility> | null,
    version: entry.version,
    kind: entry.kind,
    memory: mirroredMemoryOf(entry),
    handoff: null as ReturnType<typeof queuedHandoffOf> | null,
    session_event: null as ReturnType<typeof queuedEventOf> | null,
    ...toTrustFields(entry),
    text: entry.text,
    summary: entry.summary,
    metadata: entry.metadata ?? {},
    tags: entry.tags,
    artifacts: entry.artifacts,
    created_at: iso(entry.createdAt),
    updated_at: iso(entry.updatedAt),
    reviewed_by: entry.reviewedBy === "" ? null : entry.reviewedBy,
    reviewed_at: iso(entry.reviewedAt),
    review_note: entry.reviewNote === "" ? null : entry.reviewNote,
  };
}

function queuedHandoffOf(handoff: storeV1.QueuedHandoff) {
  return {
    id: handoff.id,
    title: handoff.title,
    creator: handoff.creator,
    state: handoff.status,
    version: handoff.version,
  };
}

function queuedEventOf(event: storeV1.QueuedSessionEvent) {
  return {
    session_id: event.sessionId,
    sequence: event.sequence,
    event_kind: event.eventKind,
    namespace: event.namespace,
  };
}

/** What a handoff or a session event, not being an entry, leaves empty in a queue item (a handoff sets its artifacts). */
const noEntryFields = {
  memory: null,
  handoff: null,
  session_event: null,
  summary: "",
  metadata: {},
  tags: [],
  artifacts: [] as string[],
};

/**
 * A review queue item of any kind, in the entries' shape: a handoff (kind `handoff`, its text every part the screen
 * read, its artifacts those its links name) or a session event (kind `session_event`, its text the payload, at version 1) has no thread, source or
 * visibility, and names what it is in `handoff` or `session_event`.
 */
export function toQueueItemView(item: storeV1.ReviewQueueItem) {
  const { case: type, value } = item.item;
  if (type === "entry") return toReviewItemView(value);
  if (type === "handoff") {
    return {
      ...noEntryFields,
      id: value.id,
      thread_id: null,
      source: null,
      owner: value.creator,
      updated_by: value.updatedBy,
      visibility: null,
      version: value.version,
      kind: "handoff",
      handoff: queuedHandoffOf(value),
      artifacts: value.artifacts,
      trust_state: fromProtoTrustState(value.trustState),
      trust_reasons: value.trustReasons,
      text: value.text,
      created_at: iso(value.createdAt),
      updated_at: iso(value.updatedAt),
      reviewed_by: value.reviewedBy === "" ? null : value.reviewedBy,
      reviewed_at: iso(value.reviewedAt),
      review_note: value.reviewNote === "" ? null : value.reviewNote,
    };
  }
  if (type === "sessionEvent") {
    return {
      ...noEntryFields,
      id: `${value.sessionId}/${value.sequence}`,
      thread_id: null,
      source: null,
      owner: value.sessionOwner,
      updated_by: value.writtenBy,
      visibility: null,
      version: 1,
      kind: "session_event",
      session_event: queuedEventOf(value),
      trust_state: fromProtoTrustState(value.trustState),
      trust_reasons: value.trustReasons,
      text: value.payload,
      created_at: iso(value.writtenAt),
      updated_at: iso(value.writtenAt),
      reviewed_by: value.reviewedBy === "" ? null : value.reviewedBy,
      reviewed_at: iso(value.reviewedAt),
      review_note: value.reviewNote === "" ? null : value.reviewNote,
    };
  }
  throw new Error("a review queue item of no known kind");
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
    prompt_name: version.promptName === "" ? null : version.promptName,
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
