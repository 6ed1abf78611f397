import type { storeV1 } from "@context-hub/proto";
import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import { fromProtoSource, fromProtoVisibility, toTrustFields } from "./proto-enums.js";

/** How entries are shown to MCP callers: snake_case JSON, ISO timestamps, plain strings for enums. */

const iso = (timestamp: Timestamp | undefined) =>
  timestamp === undefined ? null : timestampDate(timestamp).toISOString();

/** A prompt's declared arguments as shown to callers (a missing description as null). */
export function toPromptArgumentViews(list: readonly storeV1.PromptArgument[]) {
  return list.map((argument) => ({
    name: argument.name,
    description: argument.description === "" ? null : argument.description,
    required: argument.required,
  }));
}

/** The full view of an entry, as get_context_by_ids returns it. */
export function toEntryView(entry: storeV1.Entry) {
  return {
    id: entry.id,
    thread_id: entry.threadId,
    source: fromProtoSource(entry.source),
    owner: entry.owner,
    visibility: fromProtoVisibility(entry.visibility),
    content_type: entry.contentType,
    kind: entry.kind,
    title: entry.title === "" ? null : entry.title,
    prompt_name: entry.promptName === "" ? null : entry.promptName,
    prompt_arguments: toPromptArgumentViews(entry.promptArguments),
    artifacts: entry.artifacts,
    text: entry.text,
    summary: entry.summary,
    metadata: entry.metadata ?? {},
    tags: entry.tags,
    version: entry.version,
    content_hash: entry.contentHash,
    ...toTrustFields(entry),
    created_at: iso(entry.createdAt),
    updated_at: iso(entry.updatedAt),
    valid_from: iso(entry.validFrom),
    valid_to: iso(entry.validTo),
    images: entry.images.map((image) => ({
      ordinal: image.ordinal,
      mime_type: image.mimeType,
      byte_size: image.byteSize,
      ...(image.data.length > 0 ? { data: Buffer.from(image.data).toString("base64") } : {}),
    })),
    node_summaries: entry.nodeSummaries.map((node) => ({
      node_id: node.nodeId,
      heading: node.heading,
      level: node.level,
      start: node.span?.start ?? 0,
      end: node.span?.end ?? 0,
      summary: node.summary,
    })),
    chunk_count: entry.chunkCount,
    embedding_model: entry.embeddingModel,
  };
}

/** The listing view: a preview and the summary instead of the full text; the linked artifacts as a by-id read shows them. */
export function toEntryListing(entry: storeV1.Entry) {
  return {
    id: entry.id,
    thread_id: entry.threadId,
    source: fromProtoSource(entry.source),
    owner: entry.owner,
    visibility: fromProtoVisibility(entry.visibility),
    content_type: entry.contentType,
    kind: entry.kind,
    title: entry.title === "" ? null : entry.title,
    prompt_name: entry.promptName === "" ? null : entry.promptName,
    prompt_arguments: toPromptArgumentViews(entry.promptArguments),
    artifacts: entry.artifacts,
    preview: entry.preview,
    text_length: entry.textLength,
    is_truncated: entry.textLength > entry.preview.length,
    summary: entry.summary,
    metadata: entry.metadata ?? {},
    tags: entry.tags,
    version: entry.version,
    ...toTrustFields(entry),
    created_at: iso(entry.createdAt),
    updated_at: iso(entry.updatedAt),
    valid_from: iso(entry.validFrom),
    valid_to: iso(entry.validTo),
  };
}
