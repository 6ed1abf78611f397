import { contentHash, invalidArgument } from "@context-hub/common";
import { createHash } from "node:crypto";
import type {
  ContentType,
  EntryFilter,
  EntryWrite,
  GeneratedInput,
  GeneratedWrite,
  ImageWrite,
  JsonObject,
  JsonValue,
  NewEntryInput,
  NodeSummary,
  Source,
  TextSpan,
} from "./entries.js";
import { toPreview } from "./preview.js";

/** Limits every write is held to; documented in docs/store.md. */
export const limits = {
  threadIdLength: 256,
  textLength: 1_000_000,
  images: 10,
  imageBytes: 10 * 1024 * 1024,
  tags: 50,
  tagLength: 100,
  metadataBytes: 64 * 1024,
  chunks: 10_000,
  embeddingDimension: 16_000,
  modelNameLength: 256,
  summaryLength: 20_000,
  nodeSummaries: 10_000,
  nodeIdLength: 512,
  headingLength: 1_000,
  metadataConditions: 20,
  metadataKeyLength: 256,
  listLimit: 100,
  defaultListLimit: 20,
  listOffset: 10_000,
} as const;

const imageMimePattern = /^image\/[a-z0-9][a-z0-9.+-]*$/;

function hasNul(value: string): boolean {
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
    if (tag.length > limits.tagLength) throw invalidArgument(`${field}[${index}] is ${tag.length} characters; the limit is ${limits.tagLength}`);
    if (hasNul(tag)) throw invalidArgument(`${field}[${index}] must not contain NUL characters`);
    if (!normalised.includes(tag)) normalised.push(tag);
  });
  return normalised;
}

function containsNul(value: JsonValue): boolean {
  if (typeof value === "string") return hasNul(value);
  if (Array.isArray(value)) return value.some(containsNul);
  if (value !== null && typeof value === "object") return Object.entries(value).some(([key, inner]) => hasNul(key) || containsNul(inner));
  return false;
}

function validateMetadata(metadata: JsonObject | undefined): JsonObject {
  if (metadata === undefined) return {};
  const bytes = Buffer.byteLength(JSON.stringify(metadata), "utf8");
  if (bytes > limits.metadataBytes) throw invalidArgument(`metadata is ${bytes} bytes as JSON; the limit is ${limits.metadataBytes} (64 KiB)`);
  // PostgreSQL's jsonb cannot hold U+0000.
  if (containsNul(metadata)) throw invalidArgument("metadata must not contain NUL characters");
  return metadata;
}

function validateImages(images: NewEntryInput["images"]): ImageWrite[] {
  if (images.length > limits.images) throw invalidArgument(`images: at most ${limits.images} per entry (got ${images.length})`);
  return images.map((image, index) => {
    const mimeType = image.mimeType.trim().toLowerCase();
    if (!imageMimePattern.test(mimeType)) {
      throw invalidArgument(`images[${index}].mime_type ${JSON.stringify(image.mimeType.slice(0, 100))} is not an image/* type`);
    }
    if (image.data.byteLength === 0) throw invalidArgument(`images[${index}] has no data`);
    if (image.data.byteLength > limits.imageBytes) {
      throw invalidArgument(`images[${index}] is ${image.data.byteLength} bytes; the limit is ${limits.imageBytes} (10 MiB)`);
    }
    return { mimeType, data: image.data, byteSize: image.data.byteLength, sha256: createHash("sha256").update(image.data).digest("hex") };
  });
}

/**
 * Checks and normalises an entry a caller wants stored. Throws
 * INVALID_ARGUMENT naming the first problem; the content hash is computed
 * here, never taken from the caller.
 */
export function validateNewEntry(entry: NewEntryInput): EntryWrite {
  const threadId = validateThreadId(entry.threadId, "thread_id");
  if (entry.source === undefined) throw invalidArgument("source must be user or agent");
  const { text } = entry;
  if (text.trim().length === 0) throw invalidArgument("text must not be empty or only whitespace");
  if (text.length > limits.textLength) throw invalidArgument(`text is ${text.length} characters; the limit is ${limits.textLength}`);
  if (hasNul(text)) throw invalidArgument("text must not contain NUL characters (U+0000)");
  const tags = normaliseTags(entry.tags, "tags");
  const metadata = validateMetadata(entry.metadata);
  const images = validateImages(entry.images);
  return {
    threadId,
    source: entry.source,
    text,
    textLength: text.length,
    preview: toPreview(text),
    contentHash: contentHash(text),
    metadata,
    tags,
    images,
    visibility: entry.visibility ?? "private",
    contentType: images.length > 0 ? "multimodal" : "text",
  };
}

function validateSpan(span: TextSpan | undefined, textLength: number, field: string, allowEmpty: boolean): TextSpan {
  if (span === undefined) throw invalidArgument(`${field} is required`);
  const ordered = allowEmpty ? span.start <= span.end : span.start < span.end;
  if (!ordered || span.end > textLength) {
    throw invalidArgument(`${field} [${span.start}, ${span.end}) does not lie inside the text (length ${textLength})`);
  }
  return { start: span.start, end: span.end };
}

function validateString(value: string, field: string, maxLength: number, required: boolean): string {
  if (required && value.length === 0) throw invalidArgument(`${field} is required`);
  if (value.length > maxLength) throw invalidArgument(`${field} is ${value.length} characters; the limit is ${maxLength}`);
  if (hasNul(value)) throw invalidArgument(`${field} must not contain NUL characters`);
  return value;
}

/**
 * Checks what the workers generated against the text it was generated for:
 * every span inside the text, every vector of the declared dimension and
 * finite, ordinals and node ids unique. Throws INVALID_ARGUMENT naming the
 * first problem.
 */
export function validateGenerated(generated: GeneratedInput, text: string): GeneratedWrite {
  const { chunks } = generated;
  if (chunks.length > limits.chunks) throw invalidArgument(`generated.chunks: at most ${limits.chunks} (got ${chunks.length})`);
  const embeddingModel = validateString(generated.embeddingModel, "generated.embedding_model", limits.modelNameLength, chunks.length > 0);
  const dimension = generated.embeddingDimension;
  if (chunks.length > 0 && dimension <= 0) throw invalidArgument("generated.embedding_dimension must be greater than 0 when chunks are present");
  if (dimension > limits.embeddingDimension) throw invalidArgument(`generated.embedding_dimension ${dimension} exceeds ${limits.embeddingDimension}`);
  const ordinals = new Set<number>();
  const validChunks = chunks.map((chunk, index) => {
    const field = `generated.chunks[${index}]`;
    if (ordinals.has(chunk.ordinal)) throw invalidArgument(`${field}.ordinal ${chunk.ordinal} repeats an earlier chunk's`);
    ordinals.add(chunk.ordinal);
    const span = validateSpan(chunk.span, text.length, `${field}.span`, false);
    if (chunk.vector.length !== dimension) {
      throw invalidArgument(`${field}.vector has ${chunk.vector.length} dimensions; embedding_dimension is ${dimension}`);
    }
    if (!chunk.vector.every(Number.isFinite)) throw invalidArgument(`${field}.vector contains a value that is not a finite number`);
    return { ordinal: chunk.ordinal, start: span.start, end: span.end, vector: chunk.vector };
  });
  const summary = validateString(generated.summary, "generated.summary", limits.summaryLength, false);
  if (generated.nodeSummaries.length > limits.nodeSummaries) {
    throw invalidArgument(`generated.node_summaries: at most ${limits.nodeSummaries} (got ${generated.nodeSummaries.length})`);
  }
  const nodeIds = new Set<string>();
  const nodeSummaries: NodeSummary[] = generated.nodeSummaries.map((node, index) => {
    const field = `generated.node_summaries[${index}]`;
    const nodeId = validateString(node.nodeId, `${field}.node_id`, limits.nodeIdLength, true);
    if (nodeIds.has(nodeId)) throw invalidArgument(`${field}.node_id ${JSON.stringify(nodeId)} repeats an earlier node's`);
    nodeIds.add(nodeId);
    if (!Number.isInteger(node.level) || node.level < 1 || node.level > 6) throw invalidArgument(`${field}.level must be 1 to 6 (got ${node.level})`);
    return {
      nodeId,
      heading: validateString(node.heading, `${field}.heading`, limits.headingLength, false),
      level: node.level,
      span: validateSpan(node.span, text.length, `${field}.span`, true),
      summary: validateString(node.summary, `${field}.summary`, limits.summaryLength, false),
    };
  });
  return { embeddingModel, chunks: validChunks, summary, nodeSummaries };
}

/** A listing filter as a caller submits it (before validation). */
export interface EntryFilterInput {
  threadId: string;
  source: Source | undefined;
  tags: readonly string[];
  metadata: readonly { key: string; value: JsonValue | undefined }[];
  createdFrom: Date | undefined;
  createdTo: Date | undefined;
  contentType: string;
}

function toContentType(value: string): ContentType | undefined {
  if (value === "") return undefined;
  if (value === "text" || value === "multimodal") return value;
  throw invalidArgument(`filter.content_type must be "text", "multimodal" or empty (got ${JSON.stringify(value.slice(0, 40))})`);
}

/** Checks and normalises a listing filter; tags are normalised as on write so they match. */
export function validateEntryFilter(filter: EntryFilterInput | undefined): EntryFilter {
  if (filter === undefined) {
    return { threadId: undefined, source: undefined, tags: [], metadata: [], createdFrom: undefined, createdTo: undefined, contentType: undefined };
  }
  const threadId = filter.threadId === "" ? undefined : validateThreadId(filter.threadId, "filter.thread_id");
  const tags = normaliseTags(filter.tags, "filter.tags");
  if (filter.metadata.length > limits.metadataConditions) {
    throw invalidArgument(`filter.metadata: at most ${limits.metadataConditions} conditions (got ${filter.metadata.length})`);
  }
  const metadata = filter.metadata.map((condition, index) => {
    const field = `filter.metadata[${index}]`;
    const key = validateString(condition.key, `${field}.key`, limits.metadataKeyLength, true);
    if (condition.value === undefined) throw invalidArgument(`${field}.value is required`);
    if (containsNul(condition.value)) throw invalidArgument(`${field}.value must not contain NUL characters`);
    return { key, value: condition.value };
  });
  for (const [name, date] of [["created_from", filter.createdFrom], ["created_to", filter.createdTo]] as const) {
    if (date !== undefined && Number.isNaN(date.getTime())) throw invalidArgument(`filter.${name} is not a valid time`);
  }
  if (filter.createdFrom !== undefined && filter.createdTo !== undefined && filter.createdFrom >= filter.createdTo) {
    throw invalidArgument("filter.created_from must be before filter.created_to");
  }
  return { threadId, source: filter.source, tags, metadata, createdFrom: filter.createdFrom, createdTo: filter.createdTo, contentType: toContentType(filter.contentType) };
}

/** A page of a listing: limit 1–100 (0 means the default, 20), offset up to 10,000. */
export function validatePage(limit: number, offset: number): { limit: number; offset: number } {
  if (limit > limits.listLimit) throw invalidArgument(`limit must be 1 to ${limits.listLimit} (got ${limit})`);
  if (offset > limits.listOffset) {
    throw invalidArgument(`offset must be at most ${limits.listOffset} (got ${offset})`, "narrow the listing with created_to (older than the last entry seen) instead of paging deeper");
  }
  return { limit: limit === 0 ? limits.defaultListLimit : limit, offset };
}
