/**
 * The entry domain: what an entry is, what a write must satisfy, and how the
 * four store operations run. No transport or SQL here; persistence sits
 * behind `EntryRepository`.
 */
import { ContextHubError, invalidArgument } from "@context-hub/common";
import { toIdQuery } from "./id-query.js";
import { requirePrincipal, type Principal } from "./principal.js";
import { validateEntryFilter, validateGenerated, validateNewEntry, validatePage, validateThreadId, type EntryFilterInput } from "./entry-validation.js";
import type { EntryRepository } from "./entry-repository.js";

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export type Source = "user" | "agent";
export type Visibility = "private" | "shared" | "tenant";
export type ContentType = "text" | "multimodal";

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
}

/** What the workers produced for an entry's text (before validation). */
export interface GeneratedInput {
  embeddingModel: string;
  embeddingDimension: number;
  chunks: readonly { ordinal: number; span: TextSpan | undefined; vector: readonly number[] }[];
  summary: string;
  nodeSummaries: readonly { nodeId: string; heading: string; level: number; span: TextSpan | undefined; summary: string }[];
}

export interface ImageWrite {
  mimeType: string;
  data: Uint8Array;
  byteSize: number;
  /** Hex SHA-256 of the bytes: lets a dedup fold tell a resent image from a new one without reading it back. */
  sha256: string;
}

/** A validated, normalised entry ready to store. */
export interface EntryWrite {
  threadId: string;
  source: Source;
  text: string;
  textLength: number;
  preview: string;
  contentHash: string;
  metadata: JsonObject;
  tags: string[];
  images: ImageWrite[];
  visibility: Visibility;
  contentType: ContentType;
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
}

/** What identifies a retransmit: same thread, same source, same text. */
export interface DuplicateKey {
  threadId: string;
  source: Source;
  contentHash: string;
}

/** A validated listing filter; absent fields do not filter. */
export interface EntryFilter {
  threadId: string | undefined;
  source: Source | undefined;
  tags: string[];
  metadata: { key: string; value: JsonValue }[];
  createdFrom: Date | undefined;
  createdTo: Date | undefined;
  contentType: ContentType | undefined;
}

export interface GetEntriesResult {
  entries: StoredEntry[];
  missing: string[];
}

export interface ListEntriesResult {
  entries: StoredEntry[];
  hasMore: boolean;
}

export interface EntryService {
  /**
   * The id of the caller's entry a write of `key` would fold into, or
   * undefined. It is the caller's latest entry in the thread with that source,
   * if its content hash is `key.contentHash` and no entry of the other source
   * that the caller may see was written after it.
   */
  findDuplicate(principal: Principal | undefined, key: { threadId: string; source: Source | undefined; contentHash: string }): Promise<string | undefined>;
  /**
   * Validates, then in one transaction either folds the write into the
   * caller's duplicate (re-asserting its hash) or inserts the entry with
   * everything generated for it. Without `generated` a write that finds no
   * duplicate fails with DUPLICATE_VANISHED and stores nothing.
   */
  commit(principal: Principal | undefined, entry: NewEntryInput | undefined, generated: GeneratedInput | undefined): Promise<EntryAck>;
  /** Entries by full id or unique prefix, in request order, as far as the caller may see them. */
  getEntries(principal: Principal | undefined, request: { ids: readonly string[]; includeImages: boolean }): Promise<GetEntriesResult>;
  /** Entries matching a filter, newest first, as far as the caller may see them. */
  listEntries(principal: Principal | undefined, request: { filter: EntryFilterInput | undefined; limit: number; offset: number }): Promise<ListEntriesResult>;
}

/** Most ids one GetEntries call may ask for. */
export const maxIdsPerGet = 100;
/** How many visible matches of an ambiguous prefix the error lists. */
const ambiguousCandidatesShown = 5;

const contentHashPattern = /^[0-9a-f]{64}$/;

function validateDuplicateKey(key: { threadId: string; source: Source | undefined; contentHash: string }): DuplicateKey {
  const threadId = validateThreadId(key.threadId, "thread_id");
  if (key.source === undefined) throw invalidArgument("source must be user or agent");
  if (!contentHashPattern.test(key.contentHash)) throw invalidArgument("content_hash must be a lowercase hex SHA-256 (64 characters)");
  return { threadId, source: key.source, contentHash: key.contentHash };
}

/** The entry service over a repository. */
export function createEntryService(repository: EntryRepository): EntryService {
  return {
    async findDuplicate(principal, key) {
      const caller = requirePrincipal(principal, "context:write");
      return repository.findDuplicate(caller, validateDuplicateKey(key));
    },

    async commit(principal, entry, generated) {
      const caller = requirePrincipal(principal, "context:write");
      if (entry === undefined) throw invalidArgument("entry is required");
      // Everything is checked before the transaction opens: bad input stores nothing.
      const write = validateNewEntry(entry);
      const generatedWrite = generated === undefined ? undefined : validateGenerated(generated, write.text);
      const key: DuplicateKey = { threadId: write.threadId, source: write.source, contentHash: write.contentHash };

      return repository.commit(async (tx) => {
        // Serialises writes to one thread, so two identical retransmits cannot both miss each other.
        await tx.lockThread(caller, write.threadId);
        const duplicateId = await tx.findDuplicate(caller, key);
        if (duplicateId !== undefined) {
          // The update re-asserts the hash it saw; if the text changed meanwhile it matches nothing and this becomes an insert.
          const folded = await tx.fold(caller, duplicateId, write);
          if (folded !== undefined) return folded;
        }
        if (generatedWrite === undefined) {
          throw new ContextHubError("DUPLICATE_VANISHED", "the entry this write was to fold into is gone or has changed; nothing was stored", {
            remedy: "generate embeddings and summaries for the entry and commit it again",
          });
        }
        return tx.insert(caller, write, generatedWrite);
      });
    },

    async getEntries(principal, request) {
      const caller = requirePrincipal(principal, "context:read");
      if (request.ids.length === 0 || request.ids.length > maxIdsPerGet) {
        throw invalidArgument(`ids must list 1 to ${maxIdsPerGet} ids (got ${request.ids.length})`);
      }
      const queries = request.ids.map((id, position) => toIdQuery(id, position));
      // Resolution sees only what the caller may see, so an ambiguity can never reveal a hidden entry.
      const matches = await repository.resolveIds(caller, queries, ambiguousCandidatesShown);
      const resolved = queries.map((query, position) => {
        const found = matches[position] ?? [];
        if (found.length > 1) {
          throw new ContextHubError("AMBIGUOUS_ID_PREFIX", `id prefix ${JSON.stringify(query.input)} matches more than one entry`, {
            remedy: "give more characters of the id, or the full id",
            details: { prefix: query.input, candidates: found },
          });
        }
        return found[0];
      });
      const wanted = [...new Set(resolved.filter((id): id is string => id !== undefined))];
      const fetched = wanted.length === 0 ? [] : await repository.getByIds(caller, wanted, request.includeImages);
      const byId = new Map(fetched.map((stored) => [stored.id, stored]));
      // An entry deleted between resolution and fetch simply does not exist for the caller.
      const missing = queries.filter((_, position) => !byId.has(resolved[position] ?? "")).map((query) => query.input);
      return { entries: wanted.flatMap((id) => byId.get(id) ?? []), missing: [...new Set(missing)] };
    },

    async listEntries(principal, request) {
      const caller = requirePrincipal(principal, "context:read");
      const filter = validateEntryFilter(request.filter);
      const page = validatePage(request.limit, request.offset);
      return repository.list(caller, filter, page);
    },
  };
}
