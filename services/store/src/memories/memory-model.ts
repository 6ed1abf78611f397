/**
 * Named memories as every layer of the store speaks of them: their records,
 * the requests of the memory service and the checks of those requests. Pure
 * rules, no SQL and no transport.
 */
import { createHash } from "node:crypto";
import { ContextHubError, invalidArgument } from "@context-hub/common";
import type { MirroredMemory } from "../entries/memory-mirror.js";
import type { GeneratedInput } from "../model/entry-model.js";
import type { Visibility } from "../model/entry-values.js";
import { hasNul, normaliseTags, validateThreadId } from "../model/field-validation.js";
import type { IdempotencyRequest } from "../model/idempotency-request.js";
import type { Trust } from "../model/trust.js";
import type { PartTrust, ScreenedPart } from "../screen/part-screen.js";

export type MemoryValueType = "text" | "json";

/** A memory's limits; the gateway's schemas hold callers to the same numbers. */
export const memoryLimits = {
  keyChars: 512,
  valueChars: 100_000,
  kindChars: 64,
  reasonChars: 1_000,
  /** A listing shows this many characters of each value; get_memory reads the rest. */
  previewChars: 1_000,
  defaultPage: 20,
  maxPage: 100,
  maxHistoryOffset: 10_000,
} as const;

/** A memory's current revision, or one of its earlier ones: what its mirror entry shows, and more. */
export interface MemoryRecord extends MirroredMemory {
  valueType: MemoryValueType;
  /** SHA-256 of the value, hex. */
  contentHash: string;
  createdAt: Date;
  /** When and by whom this revision was written. */
  updatedAt: Date;
  updatedBy: string;
  /**
   * This revision's trust: quarantined when the write-time screen found
   * instruction-shaped content in it, unverified when it found none;
   * verified or rejected once a reviewer approved or rejected it.
   */
  trust: Trust;
}

/** A listing's row: the value cut to a preview when it is long. */
export interface MemorySummary extends MemoryRecord {
  valueChars: number;
  truncated: boolean;
}

/** One kept revision: a put, or the delete that left the tombstone. */
export interface MemoryRevision {
  version: number;
  change: "put" | "delete";
  visibility: Visibility;
  kind: string;
  tags: string[];
  valueType: MemoryValueType;
  value: string;
  contentHash: string;
  writtenBy: string;
  writtenAt: Date;
  reason: string;
  /** Private while it was current, and the caller is not the owner: value, hash, kind and tags are empty. */
  redacted: boolean;
  trust: Trust;
  /** The review that judged this revision, if one did (list_review_queue, review_context). */
  review: MemoryRevisionReview | null;
}

/** Who reviewed a revision, when, and the note they left. */
export interface MemoryRevisionReview {
  by: string;
  at: Date;
  note: string;
}

/** What is left of a deleted memory, shown to its owner. */
export interface MemoryTombstone {
  deletedBy: string;
  deletedAt: Date;
  reason: string;
}

/** Which memory a call names: the owner defaults to the caller. */
export interface MemoryName {
  namespace: string;
  key: string;
  owner: string;
}

export interface PutMemoryRequest {
  namespace: string;
  key: string;
  /** Whose memory to change: empty for the caller's own. */
  owner: string;
  valueType: MemoryValueType;
  value: string;
  kind: string;
  tags: string[];
  /** Undefined keeps the memory's visibility (a new one is shared: its owner's alone until the namespace is shared). */
  visibility: Visibility | undefined;
  /** Compare-and-set: the version the caller last saw; 0 for "must not exist yet"; undefined for no check. */
  expectedVersion: number | undefined;
  /**
   * What the gateway generated for the value (its JSON text for a JSON
   * value) before the call: the mirror entry's chunks, embeddings and
   * summary. Required: a put without it is refused (its mirror would have
   * no chunks, so meaning-based search would never find it).
   */
  generated?: GeneratedInput | undefined;
  idempotency?: IdempotencyRequest<PutMemoryResult> | undefined;
}

export interface PutMemoryResult {
  memory: MemoryRecord;
  created: boolean;
}

export interface GetMemoryRequest {
  namespace: string;
  key: string;
  owner: string;
  /** 0 for the current revision. */
  version: number;
  /** The revision current at this instant. */
  asOf: Date | undefined;
  /** Return a quarantined value; without it one is refused (PERMISSION_DENIED naming its trust state). */
  includeQuarantined: boolean;
}

export interface ListMemoriesRequest {
  /** Empty: every namespace. */
  namespace: string;
  keyPrefix: string;
  kind: string;
  tag: string;
  owner: string;
  limit: number;
  /** An opaque cursor from the previous page; empty for the first. */
  cursor: string;
  /** List memories whose current value is quarantined too; without it they are left out. */
  includeQuarantined: boolean;
}

export interface MemoryPage {
  memories: MemorySummary[];
  /** Empty on the last page. */
  nextCursor: string;
}

export interface MemoryHistoryRequest {
  namespace: string;
  key: string;
  owner: string;
  limit: number;
  offset: number;
}

export interface MemoryHistory {
  id: string;
  namespace: string;
  key: string;
  owner: string;
  latestVersion: number;
  /** Newest first. */
  revisions: MemoryRevision[];
  hasMore: boolean;
  tombstone: MemoryTombstone | undefined;
}

export interface DeleteMemoryRequest {
  namespace: string;
  key: string;
  owner: string;
  reason: string;
  expectedVersion: number | undefined;
  idempotency?: IdempotencyRequest<DeleteMemoryResult> | undefined;
}

export interface DeleteMemoryResult {
  id: string;
  namespace: string;
  key: string;
  owner: string;
  /** The version the delete was recorded as. */
  version: number;
}

/**
 * A revision as `caller` may see it: one that was private while it was
 * current is the owner's alone (and an admin's), so anyone a later share let
 * in sees that it exists but not what it held, as with entries' versions.
 */
export function revisionFor(revision: MemoryRevision, owner: string, subject: string, admin: boolean): MemoryRevision {
  if (revision.visibility !== "private" || owner === subject || admin) return revision;
  return {
    ...revision,
    value: "",
    contentHash: "",
    kind: "",
    tags: [],
    redacted: true,
    trust: { state: revision.trust.state, reasons: [] },
    // Who judged it and when stay, as who wrote it does; the note may speak of the value, so it goes with it.
    review: revision.review === null ? null : { ...revision.review, note: "" },
  };
}

/** SHA-256 of a value, hex: what audit records and revisions name it by. */
export function memoryHash(value: string): string {
  return createHash("sha256").update(value, "utf8").digest("hex");
}

/** The namespace a call names, or the caller's own (its subject) when it names none. */
export function namespaceOf(namespace: string, subject: string): string {
  return validateThreadId(namespace === "" ? subject : namespace, "namespace");
}

/** A key: 1 to 512 characters without NUL. */
export function validateKey(key: string): string {
  if (key.length < 1 || key.length > memoryLimits.keyChars)
    throw invalidArgument(`key must be 1 to ${memoryLimits.keyChars} characters (got ${key.length})`);
  if (hasNul(key)) throw invalidArgument("key must not contain NUL characters");
  return key;
}

function validateOwner(owner: string, subject: string): string {
  if (owner === "") return subject;
  if (owner.length > 256 || hasNul(owner)) throw invalidArgument("owner must be at most 256 characters without NUL");
  return owner;
}

/** The memory a call names, with its defaults filled in. */
export function validateName(request: { namespace: string; key: string; owner: string }, subject: string): MemoryName {
  return {
    namespace: namespaceOf(request.namespace, subject),
    key: validateKey(request.key),
    owner: validateOwner(request.owner, subject),
  };
}

function validateValue(valueType: MemoryValueType, value: string): string {
  if (value.length > memoryLimits.valueChars)
    throw invalidArgument(
      `value must be at most ${memoryLimits.valueChars} characters (got ${value.length})`,
      "store long documents with store_context and keep their id in the memory",
    );
  if (hasNul(value)) throw invalidArgument("value must not contain NUL characters");
  if (valueType === "text") {
    if (value.length === 0)
      throw invalidArgument("value must not be empty", "delete the memory with delete_memory instead");
    return value;
  }
  try {
    return JSON.stringify(JSON.parse(value));
  } catch {
    throw invalidArgument("value of type json is not valid JSON");
  }
}

/** A checked put: its name resolved, its value, kind and tags normalised. */
export interface ValidPut extends MemoryName {
  valueType: MemoryValueType;
  value: string;
  kind: string;
  tags: string[];
  visibility: Visibility | undefined;
  expectedVersion: number | undefined;
}

/** A checked put with the write-time screen's verdict on its value, kind and tags. */
export interface ScreenedPut extends ValidPut {
  trust: PartTrust;
}

/** What the write-time screen reads of a put: its value (a JSON value's keys and strings each on their own), kind and tags. */
export function screenedPartsOf(put: ValidPut): Record<string, ScreenedPart> {
  return {
    value: put.valueType === "json" ? { json: JSON.parse(put.value) as unknown } : { text: put.value },
    kind: { text: put.kind },
    tags: { strings: put.tags },
  };
}

/**
 * The trust states whose value reads hold back unless `include_quarantined`,
 * as entries' reads do: quarantined by the screen, or rejected by a reviewer.
 */
export const withheldMemoryStates: readonly Trust["state"][] = ["quarantined", "rejected"];

/** Whether reads hold this trust's value back unless `include_quarantined`. */
export function isWithheld(trust: Trust): boolean {
  return withheldMemoryStates.includes(trust.state);
}

/**
 * The answer for a quarantined or rejected value read without
 * `include_quarantined`, as entries' single-entry reads answer: told only to
 * callers who may read the memory (anyone else gets `memoryNotFound`).
 */
export function memoryWithheld(name: MemoryName, subject: string, version: number, trust: Trust): ContextHubError {
  return new ContextHubError(
    "PERMISSION_DENIED",
    `memory ${describeName(name, subject)} is withheld: its trust state is ${trust.state} (${trust.reasons.join(", ")})`,
    {
      remedy:
        trust.state === "rejected"
          ? "a reviewer rejected this value: pass include_quarantined: true to read it as untrusted data, or put a new value under the key (its owner or a writer)"
          : "pass include_quarantined: true to read it as untrusted data, put a clean value under the key (its owner or a writer), or ask a reviewer to approve it",
      details: { trust_state: trust.state, trust_reasons: trust.reasons, version },
    },
  );
}

/** Checks a put before any transaction opens: bad input changes nothing. */
export function validatePut(request: PutMemoryRequest, subject: string): ValidPut {
  const name = validateName(request, subject);
  if (request.kind.length > memoryLimits.kindChars || hasNul(request.kind))
    throw invalidArgument(`kind must be at most ${memoryLimits.kindChars} characters without NUL`);
  return {
    ...name,
    valueType: request.valueType,
    value: validateValue(request.valueType, request.value),
    kind: request.kind,
    tags: normaliseTags(request.tags, "tags"),
    visibility: request.visibility,
    expectedVersion: request.expectedVersion,
  };
}

/** A listing's page size: 1 to 100, 0 meaning 20. */
export function validateMemoryPage(limit: number): number {
  if (limit > memoryLimits.maxPage) throw invalidArgument(`limit must be 1 to ${memoryLimits.maxPage} (got ${limit})`);
  return limit === 0 ? memoryLimits.defaultPage : limit;
}

/** A reason for a delete: at most 1,000 characters. */
export function validateReason(reason: string): string {
  if (reason.length > memoryLimits.reasonChars || hasNul(reason))
    throw invalidArgument(`reason must be at most ${memoryLimits.reasonChars} characters without NUL`);
  return reason;
}

/** How a memory is named in messages: namespace/key, and the owner when it is not the caller. */
export function describeName(name: MemoryName, subject: string): string {
  const label = `${JSON.stringify(name.namespace)}/${JSON.stringify(name.key)}`;
  return name.owner === subject ? label : `${label} of ${JSON.stringify(name.owner)}`;
}

/**
 * The answer for a memory that does not exist, or exists but the caller may
 * not see it: one message for both, so nobody learns what they cannot read.
 */
export function memoryNotFound(name: MemoryName, subject: string): ContextHubError {
  return new ContextHubError("ENTRY_NOT_FOUND", `no memory ${describeName(name, subject)} that you can see`, {
    remedy: "list_memories shows the memories you can see",
  });
}

/** The compare-and-set conflict: told only to callers who can read the memory. */
export function memoryVersionConflict(
  name: MemoryName,
  subject: string,
  expected: number,
  actual: number | undefined,
): ContextHubError {
  const now = actual === undefined ? "does not exist" : `is at version ${actual}`;
  return new ContextHubError(
    "VERSION_CONFLICT",
    `memory ${describeName(name, subject)} ${now}, not at the expected version ${expected}`,
    {
      remedy:
        "read it with get_memory, merge your change into its current value, and put again with its version as expected_version",
      details: { expected_version: expected, ...(actual === undefined ? {} : { current_version: actual }) },
    },
  );
}
