/**
 * What an entry is: the shapes an entry takes on its way in (inputs, validated
 * writes, changes) and on its way out (stored entries, acknowledgements,
 * listings, statistics). Types only; the operations are in entries.ts.
 */
import type { IdQuery } from "./id-query.js";
import type { IdempotencyRequest } from "./idempotency-request.js";
import type { ItemResult } from "./items.js";
import type { SearchFilter } from "./search-filter.js";
import type { Trust, TrustState } from "./trust.js";
import type { FieldScreens } from "../screen/write-screen.js";
import type { PromptArgument, PromptArgumentInput } from "./prompt-arguments.js";
import type { ContentType, JsonObject, JsonValue, Source, Visibility } from "./entry-values.js";

export type { ContentType, JsonObject, JsonValue, Source, Visibility };
export type { DailyActivity, EntryStatistics, ThreadPage, ThreadSummary } from "./entry-statistics.js";

/** A span of an entry's text in UTF-16 code units, end exclusive. */
export interface TextSpan {
  start: number;
  end: number;
}

export interface NodeSummary {
  nodeId: string;
  heading: string;
  level: number;
  span: TextSpan;
  summary: string;
}

/** An entry as a caller submits it (before validation). */
export interface NewEntryInput {
  threadId: string;
  source: Source | undefined;
  text: string;
  metadata: JsonObject | undefined;
  tags: readonly string[];
  images: readonly { mimeType: string; data: Uint8Array }[];
  visibility: Visibility | undefined;
  /** When the stated fact holds (valid time); undefined ends are open. */
  validFrom?: Date | undefined;
  validTo?: Date | undefined;
  /** What the entry is (note, document, prompt, …); absent or empty is a note. */
  kind?: string | undefined;
  /** An optional one-line title; absent or empty is none. */
  title?: string | undefined;
  /** The arguments a prompt declares (kind `prompt` only); absent or empty is none. */
  promptArguments?: readonly PromptArgumentInput[] | undefined;
  /** The artifacts (hex SHA-256) the entry links; absent or empty is none. */
  artifacts?: readonly string[] | undefined;
  /** The name its owner knows a prompt by (kind `prompt` only); absent or empty is none. */
  promptName?: string | undefined;
}

/** A valid-time interval: valid_from ≤ t < valid_to, an undefined end open. */
export interface Validity {
  validFrom: Date | undefined;
  validTo: Date | undefined;
}

/** What the workers produced for an entry's text (before validation). */
export interface GeneratedInput {
  embeddingModel: string;
  embeddingDimension: number;
  chunks: readonly { ordinal: number; span: TextSpan | undefined; vector: readonly number[] }[];
  summary: string;
  nodeSummaries: readonly {
    nodeId: string;
    heading: string;
    level: number;
    span: TextSpan | undefined;
    summary: string;
  }[];
  /** Content hash of the text this was generated for; empty when the caller did not say. */
  textHash: string;
}

export interface ImageWrite {
  mimeType: string;
  data: Uint8Array;
  byteSize: number;
  /** Hex SHA-256 of the bytes: lets a dedup fold tell a resent image from a new one without reading it back. */
  sha256: string;
}

/** A validated text with what is derived from it. */
export interface TextWrite {
  text: string;
  textLength: number;
  preview: string;
  contentHash: string;
  /**
   * `entry_search_vector(text)` in tsvector's text form, computed before the
   * write's transaction for a long text; absent, the database computes it in
   * the write's own statement (see migration 10).
   */
  searchVector?: string | undefined;
}

/** A validated, normalised entry ready to store. */
export interface EntryWrite extends TextWrite {
  threadId: string;
  source: Source;
  metadata: JsonObject;
  tags: string[];
  images: ImageWrite[];
  /** Undefined when the caller did not choose: private, or shared in a thread the caller has shared (decided in the transaction). */
  visibility: Visibility | undefined;
  contentType: ContentType;
  validity: Validity;
  /** One of the store's kinds, never a reserved one. */
  kind: string;
  /** Trimmed; undefined for none. */
  title: string | undefined;
  /** Validated against the kind and the text's placeholders; empty for none. */
  promptArguments: PromptArgument[];
  /** The linked artifacts: distinct lowercase SHA-256 digests, sorted; empty for none. */
  artifacts: string[];
  /** A prompt's name (kind `prompt` only); undefined for none. */
  promptName: string | undefined;
}

/** Validated generation output ready to store. */
export interface GeneratedWrite {
  embeddingModel: string;
  chunks: { ordinal: number; start: number; end: number; vector: readonly number[] }[];
  summary: string;
  nodeSummaries: NodeSummary[];
}

/** The read-back acknowledgement of a committed write. */
export interface EntryAck {
  id: string;
  version: number;
  contentHash: string;
  deduplicated: boolean;
  createdAt: Date;
  updatedAt: Date;
  /** A new entry whose text matches a deleted entry of its thread that the caller could see (or deleted). */
  previouslyDeleted: boolean;
  /** The entry's trust once the write committed. */
  trust: Trust;
}

/** An entry's trust as a reader sees it: the state, the screen's findings and the last review. */
export interface EntryTrust extends Trust {
  reviewedBy: string | undefined;
  reviewedAt: Date | undefined;
  reviewNote: string | undefined;
}

export interface StoredImage {
  ordinal: number;
  mimeType: string;
  byteSize: number;
  /** Present only when the caller asked for image data. */
  data: Uint8Array | undefined;
}

/** An entry as a reader sees it. */
export interface StoredEntry {
  id: string;
  threadId: string;
  source: Source;
  owner: string;
  visibility: Visibility;
  /** Full text on a by-id fetch; empty in listings. */
  text: string;
  preview: string;
  textLength: number;
  contentHash: string;
  metadata: JsonObject;
  tags: string[];
  summary: string;
  version: number;
  createdAt: Date;
  updatedAt: Date;
  images: StoredImage[];
  contentType: ContentType;
  /** Filled on a by-id fetch; empty in listings. */
  nodeSummaries: NodeSummary[];
  /** Filled on a by-id fetch; empty in listings. */
  embeddingModel: string;
  /** Filled on a by-id fetch; 0 in listings. */
  chunkCount: number;
  /**
   * The entry's trust. Every read of the entry repository sets it; a listing
   * built elsewhere must select it too (`trustColumns`, `toEntryTrust` in
   * entry-repository.ts), or the entry is reported with an unknown state.
   */
  trust?: EntryTrust | undefined;
  /** Who wrote the current version (set with `trust`). */
  updatedBy?: string | undefined;
  /** When the stated fact holds (valid time); undefined ends are open. */
  validFrom?: Date | undefined;
  validTo?: Date | undefined;
  /** What the entry is: note, document, prompt, plan, report, or a configured kind. */
  kind: string;
  /** Its title; undefined when it has none. */
  title?: string | undefined;
  /** The arguments it declares as a prompt; empty for none. */
  promptArguments: PromptArgument[];
  /** The artifacts it links, sorted; filled on a by-id fetch, in listings and in the review queue. */
  artifacts?: string[] | undefined;
  /** Its name as a prompt; undefined when it has none. */
  promptName: string | undefined;
}

/** What identifies a retransmit: same thread, same source, same text. */
export interface DuplicateKey {
  threadId: string;
  source: Source;
  contentHash: string;
}

/** A validated listing filter: the filter set every search shares (search-filter.ts). */
export type EntryFilter = SearchFilter;

export interface GetEntriesResult {
  entries: StoredEntry[];
  missing: string[];
  /** Entries the caller may see that were left out because of their trust state (without `includeQuarantined`). */
  withheld: { id: string; state: TrustState }[];
  /** Entries the caller may see that were left out to keep the reply within its byte budget, in the order asked for. */
  notReturned: { id: string; sizeBytes: number; reason: string }[];
}

export interface ListEntriesResult {
  entries: StoredEntry[];
  hasMore: boolean;
}

/** One item of an UpdateEntries call as the caller sent it; absent fields stay as stored. */
export interface EntryUpdateInput {
  id: string;
  expectedVersion: number | undefined;
  text: string | undefined;
  metadata: JsonObject | undefined;
  tags: readonly string[] | undefined;
  images: readonly { mimeType: string; data: Uint8Array }[] | undefined;
  visibility: Visibility | undefined;
  generated: GeneratedInput | undefined;
  /**
   * Set when the change restores an earlier version: the store checks the
   * content matches it, brings back that version's valid-time interval and
   * records the restore.
   */
  restoredFromVersion?: number | undefined;
  /** Replaces the valid-time interval when present; on a restore it may only repeat the restored version's. */
  validity?: Validity | undefined;
  /** Replaces the kind when present and not empty; on a restore it may only repeat the restored version's. */
  kind?: string | undefined;
  /** Replaces the title when present; empty removes it. On a restore it may only repeat the restored version's. */
  title?: string | undefined;
  /** Replaces the declared prompt arguments when present; empty removes them. On a restore it may only repeat the restored version's. */
  promptArguments?: readonly PromptArgumentInput[] | undefined;
  /** Replaces the linked artifacts when present; empty removes them. On a restore it may only repeat the restored version's. */
  artifacts?: readonly string[] | undefined;
  /** Replaces the prompt name when present; empty removes it. On a restore it may only repeat the restored version's. */
  promptName?: string | undefined;
}

/** A validated update item. */
export interface EntryChange {
  /** Names the item in errors, e.g. `updates[2]`. */
  field: string;
  query: IdQuery;
  expectedVersion: number | undefined;
  text: TextWrite | undefined;
  generated: GeneratedWrite | undefined;
  metadata: JsonObject | undefined;
  tags: string[] | undefined;
  images: ImageWrite[] | undefined;
  visibility: Visibility | undefined;
  /** The version this change restores, if it is a restore. */
  restoredFrom: number | undefined;
  /** The new valid-time interval, when the change replaces it. */
  validity: Validity | undefined;
  /** The new kind, when the change replaces it. */
  kind: string | undefined;
  /** The new title when the change replaces it; null removes it. */
  title: string | null | undefined;
  /** The new prompt arguments when the change replaces them (empty removes them). */
  promptArguments: PromptArgument[] | undefined;
  /** The new linked artifacts when the change replaces them (empty removes them). */
  artifacts?: string[] | undefined;
  /** The new prompt name when the change replaces it; null removes it. */
  promptName?: string | null | undefined;
}

/** A change with the write-time screen of the fields it brings, done before its transaction. */
export interface ScreenedChange extends EntryChange {
  screens: FieldScreens;
}

export interface CommitRequest {
  entry: NewEntryInput | undefined;
  generated: GeneratedInput | undefined;
  idempotency?: IdempotencyRequest<EntryAck> | undefined;
}

export interface CommitBatchRequest {
  entries: readonly { entry: NewEntryInput | undefined; generated: GeneratedInput | undefined }[];
  atomic: boolean;
  idempotency?: IdempotencyRequest<CommitItemResult[]> | undefined;
}

export type CommitItemResult = ItemResult<EntryAck>;

export interface UpdateEntriesRequest {
  updates: readonly EntryUpdateInput[];
  atomic: boolean;
  idempotency?: IdempotencyRequest<UpdateItemResult[]> | undefined;
}

export interface UpdateItemResult {
  /** The id as the caller wrote it. */
  requestedId: string;
  result: ItemResult<EntryAck>;
}

export interface DeleteEntriesRequest {
  ids: readonly string[];
  /** Empty unless deleting a whole thread (exclusive with `ids`). */
  threadId: string;
  atomic: boolean;
  /** Why, kept on each tombstone and in the audit log; empty for no reason given. */
  reason?: string | undefined;
  idempotency?: IdempotencyRequest<DeleteEntriesResult> | undefined;
}

export interface DeleteItemResult {
  /** The id as the caller wrote it; for a thread delete, the deleted entry's id. */
  requestedId: string;
  /** The full id of the deleted entry. */
  result: ItemResult<string>;
}

export interface DeleteEntriesResult {
  results: DeleteItemResult[];
  /** Entries deleted (each once, however often it was named). */
  deletedCount: number;
}

/** A row locked for the rest of the transaction, as the caller may see it. */
export interface LockedEntry {
  id: string;
  threadId: string;
  owner: string;
  visibility: Visibility;
  version: number;
  contentHash: string;
  tags: string[];
  metadata: JsonObject;
  /** `mime_type sha256` of each image, in order: tells a resent image from a new one without reading it. */
  imageKeys: string[];
  createdAt: Date;
  updatedAt: Date;
  /** Whether the caller may change it: the write predicate, evaluated on the locked row. */
  writable: boolean;
  source: Source;
  trust: Trust;
  /** Who wrote the current version. */
  updatedBy: string;
  validity: Validity;
  kind: string;
  title: string | undefined;
  promptArguments: PromptArgument[];
  /** The artifacts it links, sorted. */
  artifacts: string[];
  /** Its prompt name; undefined for none. */
  promptName: string | undefined;
}
