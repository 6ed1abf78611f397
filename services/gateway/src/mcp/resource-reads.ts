/**
 * Reading one entry's resources, for resources.ts (its context-hub:// URIs)
 * and published-resources.ts (the URIs its readers publish): the entry's
 * text (fenced as untrusted data, with its images as blobs), a kept
 * version's text, one image, or one file the entry links. Every read goes
 * through the store's fetch and history under the access predicate, and
 * anything the caller may not read is the one resource-not-found answer.
 */
import { isContextHubError, renderTextWithValues } from "@context-hub/common";
import type { GatewayClients } from "../clients/gateway-clients.js";
import type { Principal } from "../principal.js";
import { readLinkedArtifact, toArtifactContents } from "./entry-artifacts.js";
import { internalError, invalidParams, McpRequestError } from "./request-errors.js";
import { createFenceNonce, fenceStoredText } from "./untrusted-text.js";

export const entriesRoot = "context-hub://entries/";

/** The largest linked file resources/read returns in one reply. */
export const artifactReadBytes = 8 * 1024 * 1024;
export const textMimeType = "text/markdown";

/**
 * An entry's text as a resource serves it: fenced as untrusted data under
 * the entry's id, source and trust state, with a nonce drawn for this read,
 * so text stored earlier cannot spell the marker that closes its fence.
 */
const fenced = (text: string, entry: { id: string; source?: string; trust_state: string }) =>
  text === "" ? text : fenceStoredText(text, entry, createFenceNonce());

/** The URI of an entry, and of one of its images. */
export const entryUri = (id: string) => `${entriesRoot}${id}`;
const imageUri = (id: string, ordinal: number) => `${entriesRoot}${id}/images/${ordinal}`;

/** What resources/list shows of one entry (a type: the SDKs' result types carry an index signature). */
export type ListedResource = {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType: string;
  annotations?: { lastModified: string };
  _meta?: Record<string, unknown>;
};

/** One URI form resources/read takes. */
export type ResourceTemplate = {
  uriTemplate: string;
  name: string;
  title: string;
  description: string;
  mimeType?: string;
};

/** One item of a resources/read result: text, or base64 bytes. */
export type ResourceContents =
  | { uri: string; mimeType: string; text: string; _meta?: Record<string, unknown> }
  | { uri: string; mimeType: string; blob: string; _meta?: Record<string, unknown> };

/**
 * The one answer for a URI that names nothing the caller may read: hidden
 * and missing read the same (invariant I-2). The code is -32602 with the URI
 * as `data`, the resource-not-found error of MCP 2026-07-28 (earlier SDKs
 * sent the same).
 */
export function resourceNotFound(uri: string): McpRequestError {
  return new McpRequestError(
    invalidParams,
    `resource not found: ${uri} names nothing you may read (resources/list gives the URIs)`,
    { uri },
  );
}

/** What reading resources needs: the caller and its domain clients. */
export interface EntryReader {
  principal: Principal;
  clients: GatewayClients;
}

/** The current entry, with its image bytes when asked for, or the not-found error. */
async function currentEntry({ principal, clients }: EntryReader, uri: string, id: string, includeImages: boolean) {
  const found = await clients.entries.get(principal, { ids: [id], includeImages, includeQuarantined: false });
  const [entry] = found.entries;
  if (entry !== undefined) return entry;
  const tooLarge = found.not_returned.find((item) => item.id === id);
  if (tooLarge !== undefined)
    throw new McpRequestError(
      internalError,
      `${uri} is too large to return in one reply (${tooLarge.size_bytes} bytes with its images): read its text with get_context`,
    );
  throw resourceNotFound(uri);
}

/**
 * An entry's resource: its text, fenced as untrusted data, with its images as
 * blobs. `published` is the publication a published URI resolved to: a
 * template's values fill the text's placeholders before the fence goes round it.
 */
export async function readEntry(
  reader: EntryReader,
  uri: string,
  id: string,
  published?: { uri: string; variables: ReadonlyMap<string, string> },
): Promise<ResourceContents[]> {
  const entry = await currentEntry(reader, uri, id, true);
  const text = published === undefined ? entry.text : renderTextWithValues(entry.text, published.variables);
  return [
    {
      uri,
      mimeType: textMimeType,
      text: fenced(text, entry),
      _meta: {
        ...(published === undefined
          ? {}
          : { entry_id: id, published_as: published.uri, values: Object.fromEntries(published.variables) }),
        kind: entry.kind,
        title: entry.title,
        thread_id: entry.thread_id,
        version: entry.version,
        trust_state: entry.trust_state,
        visibility: entry.visibility,
        owner: entry.owner,
        tags: entry.tags,
        updated_at: entry.updated_at,
      },
    },
    ...entry.images.flatMap((image) =>
      image.data === undefined
        ? []
        : [{ uri: imageUri(id, image.ordinal), mimeType: image.mime_type, blob: image.data }],
    ),
  ];
}

/** A kept version's resource, when the caller may read that version. */
export async function readVersion(
  reader: EntryReader,
  uri: string,
  id: string,
  version: number,
): Promise<ResourceContents[]> {
  const { principal, clients } = reader;
  // The entry itself first: a deleted or quarantined entry serves none of its versions either.
  await currentEntry(reader, uri, id, false);
  let history;
  try {
    history = await clients.history.history(principal, { id, version, limit: 1, offset: 0 });
  } catch (error) {
    // A version never written, or purged, reads as any URI that names nothing.
    if (isContextHubError(error) && (error.code === "INVALID_ARGUMENT" || error.code === "ENTRY_NOT_FOUND"))
      throw resourceNotFound(uri);
    throw error;
  }
  const [kept] = history.versions;
  // A version private to its owner while it was current, or quarantined, is not the caller's to read.
  if (kept === undefined || kept.redacted || kept.trust_state === "quarantined") throw resourceNotFound(uri);
  return [
    {
      uri,
      mimeType: textMimeType,
      // The version's own trust state names it (as get_context_history fences its versions).
      text: fenced(kept.text, { id, trust_state: kept.trust_state }),
      _meta: {
        kind: kept.kind,
        title: kept.title,
        thread_id: history.threadId,
        version: kept.version,
        current: kept.current,
        latest_version: history.latestVersion,
        trust_state: kept.trust_state,
        visibility: kept.visibility,
        tags: kept.tags,
        written_by: kept.written_by,
        written_at: kept.written_at,
      },
    },
  ];
}

/** One image of an entry, as a blob. */
export async function readImage(
  reader: EntryReader,
  uri: string,
  id: string,
  ordinal: number,
): Promise<ResourceContents[]> {
  const entry = await currentEntry(reader, uri, id, true);
  const image = entry.images.find((candidate) => candidate.ordinal === ordinal);
  if (image?.data === undefined) throw resourceNotFound(uri);
  return [{ uri, mimeType: image.mime_type, blob: image.data }];
}

/** A file the entry links, when the caller may read the entry and the file; at most `artifactReadBytes`. */
export async function readArtifact(
  reader: EntryReader,
  uri: string,
  id: string,
  sha256: string,
): Promise<ResourceContents[]> {
  const entry = await currentEntry(reader, uri, id, false);
  let linked;
  try {
    linked = await readLinkedArtifact(reader.clients.artifacts, reader.principal, entry, sha256, artifactReadBytes);
  } catch (error) {
    if (isContextHubError(error) && error.code === "ENTRY_NOT_FOUND") throw resourceNotFound(uri);
    throw error;
  }
  if (linked === undefined) throw resourceNotFound(uri);
  if (linked.data === undefined)
    throw new McpRequestError(
      internalError,
      `${uri} is ${linked.artifact.size} bytes, more than one reply carries (${artifactReadBytes} bytes): download it from GET /artifacts/${sha256}?owner=${encodeURIComponent(entry.owner)}`,
    );
  return [{ ...toArtifactContents(uri, linked.artifact, linked.data), _meta: { filename: linked.artifact.filename } }];
}
