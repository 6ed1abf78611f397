/**
 * Reading entries back: the columns every listing selects, the mapping of a
 * row to a StoredEntry, and the resolution of ids and prefixes among the
 * entries a caller may see. Shared by every repository that returns entries.
 */
import { accessPredicate, type AccessMode } from "../filters/access-predicate.js";
import { createSqlParams, type SqlExecutor } from "../db/sql-database.js";
import type {
  ContentType,
  EntryTrust,
  JsonObject,
  NodeSummary,
  Source,
  StoredEntry,
  StoredImage,
  Visibility,
} from "../model/entry-model.js";
import type { IdQuery } from "../model/id-query.js";
import { toPreview } from "../model/preview.js";
import type { Principal } from "../model/principal.js";
import type { TrustState } from "../model/trust.js";
import { fromPromptArgumentsJson } from "../model/prompt-arguments.js";

/** The trust columns of an entry row aliased `e`, for any listing of entries (search included): select them and map the row with `toEntryTrust`. */
export const trustColumns =
  "e.trust_state, e.trust_reasons, e.reviewed_by, e.reviewed_at, e.review_note, coalesce(e.updated_by, e.owner) AS updated_by";

/** The columns `trustColumns` selects. */
export interface TrustRow {
  trust_state: TrustState;
  trust_reasons: string[];
  reviewed_by: string | null;
  reviewed_at: Date | null;
  review_note: string | null;
  updated_by: string;
}

/** An entry's trust and current writer from the columns `trustColumns` selects. */
export function toEntryTrust(row: TrustRow): { trust: EntryTrust; updatedBy: string } {
  return {
    trust: {
      state: row.trust_state,
      reasons: row.trust_reasons,
      reviewedBy: row.reviewed_by ?? undefined,
      reviewedAt: row.reviewed_at ?? undefined,
      reviewNote: row.review_note ?? undefined,
    },
    updatedBy: row.updated_by,
  };
}

/** An entry row as `entryColumns` selects it (a by-id fetch adds the text and what hangs off it). */
export interface EntryRow extends TrustRow {
  id: string;
  thread_id: string;
  source: Source;
  owner: string;
  visibility: Visibility;
  /** Selected only by a by-id fetch. */
  text?: string;
  preview: string;
  text_length: number;
  content_hash: string;
  metadata: JsonObject;
  tags: string[];
  summary: string;
  content_type: ContentType;
  version: number;
  created_at: Date;
  updated_at: Date;
  valid_from: Date | null;
  valid_to: Date | null;
  kind: string;
  title: string | null;
  prompt_arguments: unknown;
  prompt_name: string | null;
  images: { ordinal: number; mimeType: string; byteSize: number }[];
  /** Set (and `preview` NULL) on a row of an earlier version: see previewSourceColumn. */
  preview_source?: string | null;
  /** Selected only by a by-id fetch (null when the entry has none). */
  node_summaries?:
    | { nodeId: string; heading: string; level: number; start: number; end: number; summary: string }[]
    | null;
  chunk_count?: number;
  embedding_model?: string | null;
  /** Selected only by a by-id fetch. */
  artifacts?: string[];
}

const imagesJson = `coalesce((SELECT json_agg(json_build_object('ordinal', i.ordinal, 'mimeType', i.mime_type, 'byteSize', i.byte_size) ORDER BY i.ordinal)
    FROM entry_images i WHERE i.entry_id = e.id), '[]'::json) AS images`;

/** The columns of an entry listing (everything but the text and what a by-id fetch adds). */
export const entryColumns = `e.id, e.thread_id, e.source, e.owner, e.visibility, e.preview, e.text_length, e.content_hash, e.metadata, e.tags,
  e.summary, e.content_type, e.version, e.created_at, e.updated_at, e.valid_from, e.valid_to, e.kind, e.title, e.prompt_arguments, e.prompt_name, ${imagesJson}, ${trustColumns}`;

/** A row as `entryColumns` selects it, as a StoredEntry; a listing passes no `imageData` and its rows hold no text, node summaries or chunk figures. */
export function toStoredEntry(row: EntryRow, imageData: Map<string, Uint8Array> | undefined): StoredEntry {
  const images: StoredImage[] = row.images.map((image) => ({
    ordinal: image.ordinal,
    mimeType: image.mimeType,
    byteSize: image.byteSize,
    data: imageData?.get(`${row.id}/${image.ordinal}`),
  }));
  const nodeSummaries: NodeSummary[] = (row.node_summaries ?? []).map((node) => ({
    nodeId: node.nodeId,
    heading: node.heading,
    level: node.level,
    span: { start: node.start, end: node.end },
    summary: node.summary,
  }));
  return {
    id: row.id,
    threadId: row.thread_id,
    source: row.source,
    owner: row.owner,
    visibility: row.visibility,
    text: row.text ?? "",
    preview: row.preview ?? toPreview(row.preview_source ?? ""),
    textLength: row.text_length,
    contentHash: row.content_hash,
    metadata: row.metadata,
    tags: row.tags,
    summary: row.summary,
    version: row.version,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    images,
    contentType: row.content_type,
    nodeSummaries,
    embeddingModel: row.embedding_model ?? "",
    chunkCount: row.chunk_count ?? 0,
    validFrom: row.valid_from ?? undefined,
    validTo: row.valid_to ?? undefined,
    kind: row.kind,
    title: row.title ?? undefined,
    promptArguments: fromPromptArgumentsJson(row.prompt_arguments),
    artifacts: row.artifacts ?? [],
    promptName: row.prompt_name ?? undefined,
    ...toEntryTrust(row),
  };
}

/**
 * The id ranges of `queries` resolved among the entries `principal` may see:
 * a range scan on the primary key per query, the predicate applied before
 * the limit, so a hidden entry never makes a prefix ambiguous.
 */
export async function resolveIds(
  executor: SqlExecutor,
  principal: Principal,
  queries: readonly IdQuery[],
  maxMatches: number,
  mode: AccessMode = "read",
): Promise<string[][]> {
  if (queries.length === 0) return [];
  const params = createSqlParams();
  const lower = params.add(queries.map((query) => query.lower));
  const upper = params.add(queries.map((query) => query.upper));
  const limit = params.add(maxMatches);
  const { rows } = await executor.query<{ position: number; id: string }>(
    `SELECT q.position::integer AS position, m.id
     FROM unnest(${lower}::uuid[], ${upper}::uuid[]) WITH ORDINALITY AS q (lower_id, upper_id, position)
     CROSS JOIN LATERAL (
       SELECT e.id FROM entries e
       WHERE e.id BETWEEN q.lower_id AND q.upper_id AND ${accessPredicate(principal, "e", params, mode)}
       ORDER BY e.id
       LIMIT ${limit}
     ) m
     ORDER BY q.position, m.id`,
    params.values,
  );
  const matches: string[][] = queries.map(() => []);
  for (const row of rows) matches[row.position - 1]?.push(row.id);
  return matches;
}
