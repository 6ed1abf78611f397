import { contentHash, imageMimeTypes, imageTypeMismatch, invalidArgument, isImageMimeType } from "@context-hub/common";
import { createHash } from "node:crypto";
import type {
  EntryChange,
  EntryUpdateInput,
  EntryWrite,
  GeneratedInput,
  GeneratedWrite,
  ImageWrite,
  JsonObject,
  NewEntryInput,
  NodeSummary,
  TextSpan,
  TextWrite,
  Validity,
} from "../model/entry-model.js";
import {
  checkMetadataShape,
  containsNul,
  hasNul,
  limits,
  normaliseTags,
  validateThreadId,
} from "../model/field-validation.js";
import { builtInEntryKinds, validateEntryKind, validateTitle } from "../model/entry-kinds.js";
import { checkPromptShape, validatePromptArguments } from "../model/prompt-arguments.js";
import { checkPromptNameShape, validatePromptName } from "../model/prompt-name.js";
import { validateArtifactLinks } from "../model/artifact-links.js";
import { toIdQuery } from "../model/id-query.js";
import { toPreview } from "../model/preview.js";

function validateMetadata(metadata: JsonObject, field: string): JsonObject {
  checkMetadataShape(metadata, field);
  const badKey = Object.keys(metadata).find((key) => key.length < 1 || key.length > limits.metadataKeyLength);
  if (badKey !== undefined)
    throw invalidArgument(
      `${field} keys must be 1 to ${limits.metadataKeyLength} characters (got one of ${badKey.length})`,
    );
  const bytes = Buffer.byteLength(JSON.stringify(metadata), "utf8");
  if (bytes > limits.metadataBytes)
    throw invalidArgument(`${field} is ${bytes} bytes as JSON; the limit is ${limits.metadataBytes} (64 KiB)`);
  // PostgreSQL's jsonb cannot hold U+0000.
  if (containsNul(metadata)) throw invalidArgument(`${field} must not contain NUL characters`);
  return metadata;
}

function validateImages(images: NewEntryInput["images"], field: string): ImageWrite[] {
  if (images.length > limits.images)
    throw invalidArgument(`${field}: at most ${limits.images} per entry (got ${images.length})`);
  return images.map((image, index) => {
    const mimeType = image.mimeType.trim().toLowerCase();
    if (!isImageMimeType(mimeType)) {
      throw invalidArgument(
        `${field}[${index}].mime_type ${JSON.stringify(image.mimeType.slice(0, 100))} is not a stored image type; use one of ${imageMimeTypes.join(", ")}`,
      );
    }
    if (image.data.byteLength === 0) throw invalidArgument(`${field}[${index}] has no data`);
    if (image.data.byteLength > limits.imageBytes) {
      throw invalidArgument(
        `${field}[${index}] is ${image.data.byteLength} bytes; the limit is ${limits.imageBytes} (10 MiB)`,
      );
    }
    // Readers serve an image under its stored type, so bytes of another kind (SVG with script, HTML) must not pass as one.
    const mismatch = imageTypeMismatch(image.data, mimeType);
    if (mismatch !== undefined)
      throw invalidArgument(
        `${field}[${index}] ${mismatch}`,
        "send the type the image really is (PNG, JPEG, GIF or WebP), or convert it to one of them",
      );
    return {
      mimeType,
      data: image.data,
      byteSize: image.data.byteLength,
      sha256: createHash("sha256").update(image.data).digest("hex"),
    };
  });
}

/** An entry's text: not blank, no NUL, at most 1,000,000 UTF-16 code units; stored exactly as given, hashed here. */
function validateText(text: string, field: string): TextWrite {
  if (text.trim().length === 0) throw invalidArgument(`${field} must not be empty or only whitespace`);
  if (text.length > limits.textLength)
    throw invalidArgument(`${field} is ${text.length} characters; the limit is ${limits.textLength}`);
  if (hasNul(text)) throw invalidArgument(`${field} must not contain NUL characters (U+0000)`);
  return { text, textLength: text.length, preview: toPreview(text), contentHash: contentHash(text) };
}

/**
 * A valid-time interval: each end a real instant or open, and valid_from
 * strictly before valid_to when both are set. `field` names the pair's
 * prefix in errors (`valid_` for an entry, `updates[2].validity.valid_`).
 */
export function validateValidity(validity: Validity, field: string): Validity {
  for (const [end, date] of [
    ["from", validity.validFrom],
    ["to", validity.validTo],
  ] as const) {
    if (date !== undefined && Number.isNaN(date.getTime())) throw invalidArgument(`${field}${end} is not a valid time`);
  }
  if (validity.validFrom !== undefined && validity.validTo !== undefined && validity.validFrom >= validity.validTo) {
    throw invalidArgument(
      `${field}from (${validity.validFrom.toISOString()}) must be before ${field}to (${validity.validTo.toISOString()})`,
      "leave an end unset for an open interval",
    );
  }
  return { validFrom: validity.validFrom, validTo: validity.validTo };
}

/**
 * Checks and normalises an entry a caller wants stored. Throws
 * INVALID_ARGUMENT naming the first problem; the content hash is computed
 * here, never taken from the caller. An unspecified visibility stays
 * undefined: the store decides it in the write's transaction (private, or
 * shared in a thread the caller has shared). The kind must be one of
 * `kinds` (the store's configured kinds) and not reserved; none is a note.
 */
export function validateNewEntry(entry: NewEntryInput, kinds: readonly string[] = builtInEntryKinds): EntryWrite {
  const threadId = validateThreadId(entry.threadId, "thread_id");
  if (entry.source === undefined) throw invalidArgument("source must be user or agent");
  const text = validateText(entry.text, "text");
  const tags = normaliseTags(entry.tags, "tags");
  const metadata = validateMetadata(entry.metadata ?? {}, "metadata");
  const images = validateImages(entry.images, "images");
  const kind = validateEntryKind(entry.kind, kinds, "kind");
  const promptArguments = validatePromptArguments(entry.promptArguments ?? [], "prompt_arguments");
  checkPromptShape(
    { kind, text: text.text, promptArguments },
    { kind: "kind", text: "text", promptArguments: "prompt_arguments" },
  );
  const promptName = validatePromptName(entry.promptName, "prompt_name");
  checkPromptNameShape({ kind, promptName }, { kind: "kind", promptName: "prompt_name" });
  return {
    threadId,
    source: entry.source,
    ...text,
    metadata,
    tags,
    images,
    visibility: entry.visibility,
    contentType: images.length > 0 ? "multimodal" : "text",
    validity: validateValidity({ validFrom: entry.validFrom, validTo: entry.validTo }, "valid_"),
    kind,
    title: validateTitle(entry.title, "title"),
    promptArguments,
    artifacts: validateArtifactLinks(entry.artifacts ?? [], "artifacts"),
    promptName,
  };
}

/**
 * Checks one item of an UpdateEntries call (`field` names it, e.g.
 * `updates[2]`). Absent fields stay as stored. A new text must come with the
 * generation output made for it (its `text_hash` is required and must match);
 * generation output without a text is refused. Whether the text really
 * changes is known only against the stored row, so that is decided later.
 * A kind must be one of `kinds`; an empty title removes the title; an
 * empty list of prompt arguments removes them, an empty prompt name the name. Whether the kind, text and
 * prompt arguments fit together needs the stored row, so updateEntry checks it.
 */
export function validateEntryChange(
  update: EntryUpdateInput,
  field: string,
  kinds: readonly string[] = builtInEntryKinds,
): EntryChange {
  const query = toIdQuery(update.id, `${field}.id`);
  if (update.expectedVersion !== undefined && update.expectedVersion < 1) {
    throw invalidArgument(`${field}.expected_version must be at least 1 (versions start at 1)`);
  }
  const text = update.text === undefined ? undefined : validateText(update.text, `${field}.text`);
  let generated: GeneratedWrite | undefined;
  if (update.generated !== undefined) {
    if (text === undefined) throw invalidArgument(`${field}.generated is only accepted together with a new text`);
    generated = validateGenerated(update.generated, text.text, `${field}.generated`, true);
  }
  const images = update.images === undefined ? undefined : validateImages(update.images, `${field}.images`);
  if (update.restoredFromVersion !== undefined && update.restoredFromVersion < 1) {
    throw invalidArgument(`${field}.restored_from_version must be at least 1 (versions start at 1)`);
  }
  return {
    field,
    restoredFrom: update.restoredFromVersion,
    query,
    expectedVersion: update.expectedVersion,
    text,
    generated,
    metadata: update.metadata === undefined ? undefined : validateMetadata(update.metadata, `${field}.metadata`),
    tags: update.tags === undefined ? undefined : normaliseTags(update.tags, `${field}.tags`),
    images,
    visibility: update.visibility,
    validity: update.validity === undefined ? undefined : validateValidity(update.validity, `${field}.validity.valid_`),
    kind:
      update.kind === undefined || update.kind.trim() === ""
        ? undefined
        : validateEntryKind(update.kind, kinds, `${field}.kind`),
    title: update.title === undefined ? undefined : (validateTitle(update.title, `${field}.title`) ?? null),
    promptArguments:
      update.promptArguments === undefined
        ? undefined
        : validatePromptArguments(update.promptArguments, `${field}.prompt_arguments`),
    artifacts:
      update.artifacts === undefined ? undefined : validateArtifactLinks(update.artifacts, `${field}.artifacts`),
    promptName:
      update.promptName === undefined
        ? undefined
        : (validatePromptName(update.promptName, `${field}.prompt_name`) ?? null),
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
  if (value.length > maxLength)
    throw invalidArgument(`${field} is ${value.length} characters; the limit is ${maxLength}`);
  if (hasNul(value)) throw invalidArgument(`${field} must not contain NUL characters`);
  return value;
}

/**
 * Checks what the workers generated against the text it was generated for:
 * its `text_hash`, when given (or when `requireTextHash`), is that text's
 * content hash; every span lies inside the text, every vector has the
 * declared dimension and is finite, ordinals and node ids are unique. Throws
 * INVALID_ARGUMENT naming the first problem; `prefix` names the field.
 */
export function validateGenerated(
  generated: GeneratedInput,
  text: string,
  prefix = "generated",
  requireTextHash = false,
): GeneratedWrite {
  if (generated.textHash === "" && requireTextHash)
    throw invalidArgument(
      `${prefix}.text_hash is required: it must be the content hash of the text the output was generated for`,
    );
  if (generated.textHash !== "" && generated.textHash !== contentHash(text)) {
    throw invalidArgument(
      `${prefix}.text_hash does not match the text: the output was generated for other text`,
      "generate embeddings and summaries for this text and send them with it",
    );
  }
  const { chunks } = generated;
  if (chunks.length > limits.chunks)
    throw invalidArgument(`${prefix}.chunks: at most ${limits.chunks} (got ${chunks.length})`);
  const embeddingModel = validateString(
    generated.embeddingModel,
    `${prefix}.embedding_model`,
    limits.modelNameLength,
    chunks.length > 0,
  );
  const dimension = generated.embeddingDimension;
  if (chunks.length > 0 && dimension <= 0)
    throw invalidArgument(`${prefix}.embedding_dimension must be greater than 0 when chunks are present`);
  if (dimension > limits.embeddingDimension)
    throw invalidArgument(`${prefix}.embedding_dimension ${dimension} exceeds ${limits.embeddingDimension}`);
  const ordinals = new Set<number>();
  const validChunks = chunks.map((chunk, index) => {
    const field = `${prefix}.chunks[${index}]`;
    if (ordinals.has(chunk.ordinal))
      throw invalidArgument(`${field}.ordinal ${chunk.ordinal} repeats an earlier chunk's`);
    ordinals.add(chunk.ordinal);
    const span = validateSpan(chunk.span, text.length, `${field}.span`, false);
    if (chunk.vector.length !== dimension) {
      throw invalidArgument(
        `${field}.vector has ${chunk.vector.length} dimensions; embedding_dimension is ${dimension}`,
      );
    }
    if (!chunk.vector.every(Number.isFinite))
      throw invalidArgument(`${field}.vector contains a value that is not a finite number`);
    return { ordinal: chunk.ordinal, start: span.start, end: span.end, vector: chunk.vector };
  });
  const summary = validateString(generated.summary, `${prefix}.summary`, limits.summaryLength, false);
  if (generated.nodeSummaries.length > limits.nodeSummaries) {
    throw invalidArgument(
      `${prefix}.node_summaries: at most ${limits.nodeSummaries} (got ${generated.nodeSummaries.length})`,
    );
  }
  const nodeIds = new Set<string>();
  const nodeSummaries: NodeSummary[] = generated.nodeSummaries.map((node, index) => {
    const field = `${prefix}.node_summaries[${index}]`;
    const nodeId = validateString(node.nodeId, `${field}.node_id`, limits.nodeIdLength, true);
    if (nodeIds.has(nodeId))
      throw invalidArgument(`${field}.node_id ${JSON.stringify(nodeId)} repeats an earlier node's`);
    nodeIds.add(nodeId);
    if (!Number.isInteger(node.level) || node.level < 1 || node.level > 6)
      throw invalidArgument(`${field}.level must be 1 to 6 (got ${node.level})`);
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

/**
 * A page of a listing: limit 1–100 (0 means `defaultLimit`: 20 for entries,
 * 50 for threads), offset up to 10,000.
 */
export function validatePage(
  limit: number,
  offset: number,
  defaultLimit: number = limits.defaultListLimit,
): { limit: number; offset: number } {
  if (limit > limits.listLimit) throw invalidArgument(`limit must be 1 to ${limits.listLimit} (got ${limit})`);
  if (offset > limits.listOffset) {
    throw invalidArgument(
      `offset must be at most ${limits.listOffset} (got ${offset})`,
      "narrow the listing with created_to (older than the last entry seen) instead of paging deeper",
    );
  }
  return { limit: limit === 0 ? defaultLimit : limit, offset };
}

/** The number of items of a batched call: 1 to 100. */
export function validateItemCount(count: number, field: string): void {
  if (count === 0 || count > limits.itemsPerCall)
    throw invalidArgument(`${field} must list 1 to ${limits.itemsPerCall} items (got ${count})`);
}
