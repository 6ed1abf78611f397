/**
 * Checks shared by entries and the filters that select them: the write
 * limits, thread ids, tags and the shape of metadata. Below both the entry
 * model and the search filter, so neither has to import the other's module.
 */
import { entryLimits, invalidArgument, summaryCharLimit, headingCharLimit } from "@context-hub/common";
import type { JsonValue } from "./entry-values.js";

/** Limits every write is held to (the shared ones from @context-hub/common, which the gateway's schemas enforce too); documented in docs/store.md. */
export const limits = {
  threadIdLength: entryLimits.threadIdChars,
  textLength: entryLimits.textChars,
  images: entryLimits.images,
  imageBytes: entryLimits.imageBytes,
  tags: entryLimits.tags,
  tagLength: entryLimits.tagChars,
  metadataBytes: entryLimits.metadataBytes,
  /** Levels of objects and arrays in metadata, the object itself being level 1. */
  metadataDepth: entryLimits.metadataDepth,
  chunks: 10_000,
  embeddingDimension: 16_000,
  modelNameLength: 256,
  summaryLength: summaryCharLimit,
  nodeSummaries: 10_000,
  nodeIdLength: 512,
  headingLength: headingCharLimit,
  metadataConditions: entryLimits.metadataConditions,
  metadataKeyLength: entryLimits.metadataKeyChars,
  listLimit: entryLimits.pageSize,
  defaultListLimit: 20,
  defaultThreadLimit: 50,
  listOffset: entryLimits.maxOffset,
  itemsPerCall: entryLimits.itemsPerCall,
} as const;

/** Whether a string holds a NUL character, which PostgreSQL text cannot store. */
export function hasNul(value: string): boolean {
  return value.includes("\u0000");
}

/** A thread id: 1–256 characters, no NUL. */
export function validateThreadId(threadId: string, field: string): string {
  if (threadId.length < 1 || threadId.length > limits.threadIdLength) {
    throw invalidArgument(`${field} must be 1 to ${limits.threadIdLength} characters (got ${threadId.length})`);
  }
  if (hasNul(threadId)) throw invalidArgument(`${field} must not contain NUL characters`);
  return threadId;
}

/** Tags are trimmed and lowercased, then de-duplicated keeping first-seen order. */
export function normaliseTags(tags: readonly string[], field: string): string[] {
  if (tags.length > limits.tags) throw invalidArgument(`${field}: at most ${limits.tags} tags (got ${tags.length})`);
  const normalised: string[] = [];
  tags.forEach((raw, index) => {
    const tag = raw.trim().toLowerCase();
    if (tag.length === 0) throw invalidArgument(`${field}[${index}] is empty`);
    if (tag.length > limits.tagLength)
      throw invalidArgument(`${field}[${index}] is ${tag.length} characters; the limit is ${limits.tagLength}`);
    if (hasNul(tag)) throw invalidArgument(`${field}[${index}] must not contain NUL characters`);
    if (!normalised.includes(tag)) normalised.push(tag);
  });
  return normalised;
}

/** Whether any string or key inside a JSON value holds a NUL character. */
export function containsNul(value: JsonValue): boolean {
  if (typeof value === "string") return hasNul(value);
  if (Array.isArray(value)) return value.some(containsNul);
  if (value !== null && typeof value === "object")
    return Object.entries(value).some(([key, inner]) => hasNul(key) || containsNul(inner));
  return false;
}

/** Keys metadata may not use: in JavaScript they reach an object's prototype rather than naming a field. */
const reservedMetadataKeys: readonly string[] = ["__proto__", "constructor"];

/**
 * Refuses metadata (or a metadata filter's value) nested deeper than the
 * limit or using a reserved key, without recursion, so that the recursive
 * checks after it (size, NUL) and the encoding of replies (protobuf stops
 * decoding at 100 nested messages) never meet a value that is too deep.
 */
export function checkMetadataShape(metadata: JsonValue, field: string): void {
  const pending: { value: JsonValue; depth: number }[] = [{ value: metadata, depth: 1 }];
  while (pending.length > 0) {
    const { value, depth } = pending.pop()!;
    if (value === null || typeof value !== "object") continue;
    if (depth > limits.metadataDepth)
      throw invalidArgument(
        `${field} nests objects and arrays deeper than ${limits.metadataDepth} levels; the limit is ${limits.metadataDepth}`,
        "flatten the metadata",
      );
    if (Array.isArray(value)) {
      for (const inner of value) pending.push({ value: inner, depth: depth + 1 });
      continue;
    }
    for (const key of Object.keys(value)) {
      if (reservedMetadataKeys.includes(key))
        throw invalidArgument(
          `${field} must not use the key ${JSON.stringify(key)}: the keys "__proto__" and "constructor" are reserved`,
        );
      pending.push({ value: value[key]!, depth: depth + 1 });
    }
  }
}
