/**
 * The entries a caller may read, served as MCP resources: `resources/list`
 * pages through them, `resources/templates/list` names the URI forms, and
 * `resources/read` returns an entry's text (with its images as blobs), a kept
 * version's text, one image, or one file the entry links (entry-artifacts.ts), under
 * its context-hub:// URI or a URI its reader published for it (PublicationsService:
 * the caller's own publications are listed by their URIs, its templates beside the
 * built-in ones). Every read goes through the store's ordinary
 * listing, fetch and history, so the access predicate and trust states hold
 * exactly as for the tools; quarantined entries are not served. The text
 * read is stored text, data rather than instructions, and is served fenced
 * as the tools fence it (untrusted-text.ts: markers with a nonce drawn for
 * each read), its trust state in `_meta` as well. SDK-neutral: both server
 * generations register these handlers.
 */
import { isContextHubError, renderTextWithValues, resourceUriMaxChars, type Logger } from "@context-hub/common";
import { gatewayClientsFor, type GatewayClients } from "../clients/gateway-clients.js";
import type { Peers } from "../clients/peers.js";
import type { Principal } from "../principal.js";
import { readLinkedArtifact, toArtifactContents } from "./entry-artifacts.js";
import { describeEntry, entryIdPattern, optional, pageOfEntries } from "./entry-listing.js";
import { internalError, invalidParams, McpRequestError, toRequestError } from "./request-errors.js";
import { createFenceNonce, fenceStoredText, neutraliseMarkers } from "./untrusted-text.js";

/** The scope a caller needs to see resources: the read scope, as for the reading tools. */
export const resourceScope = "context:read";

const entriesRoot = "context-hub://entries/";

/** The largest linked file resources/read returns in one reply. */
const artifactReadBytes = 8 * 1024 * 1024;
const textMimeType = "text/markdown";

/** The longest name a listed entry without a title gets from the start of its text. */
const nameChars = 80;

/**
 * An entry's text as a resource serves it: fenced as untrusted data under
 * the entry's id, source and trust state, with a nonce drawn for this read,
 * so text stored earlier cannot spell the marker that closes its fence.
 */
const fenced = (text: string, entry: { id: string; source?: string; trust_state: string }) =>
  text === "" ? text : fenceStoredText(text, entry, createFenceNonce());

/** The URI of an entry, and of one of its images. */
const entryUri = (id: string) => `${entriesRoot}${id}`;
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

/** A fixed document served as a resource to every reader, e.g. the REST API's OpenAPI document. */
export interface StaticResource {
  uri: string;
  name: string;
  title: string;
  description: string;
  mimeType: string;
  text: string;
  /** What both resources/list and resources/read show in the resource's `_meta` (an MCP App's policy); none when absent. */
  _meta?: Record<string, unknown>;
}

/** The URI forms resources/read takes, as resources/templates/list shows them. */
export const resourceTemplates: readonly ResourceTemplate[] = [
  {
    uriTemplate: `${entriesRoot}{id}`,
    name: "entry",
    title: "Entry",
    description:
      "An entry you may read, by its full id: its current text, fenced as untrusted data (kind, title, thread, version and trust state in _meta), and its images as blobs.",
    mimeType: textMimeType,
  },
  {
    uriTemplate: `${entriesRoot}{id}/versions/{version}`,
    name: "entry-version",
    title: "Entry version",
    description:
      "One kept version of an entry you may read (get_context_history lists them): its text as it was then, fenced as untrusted data, with its metadata in _meta.",
    mimeType: textMimeType,
  },
  {
    uriTemplate: `${entriesRoot}{id}/images/{ordinal}`,
    name: "entry-image",
    title: "Entry image",
    description: "One image of an entry you may read, by its position (from 0), as a blob of its own type.",
  },
  {
    uriTemplate: `${entriesRoot}{id}/artifacts/{sha256}`,
    name: "entry-artifact",
    title: "Linked file",
    description: `A file an entry you may read links (its artifacts list gives the SHA-256s), as stored: text for a textual media type in UTF-8, else a blob; up to ${artifactReadBytes / 1024 / 1024} MiB (GET /artifacts/{sha256} serves larger ones).`,
  },
];

/** The URIs a caller may have published: any absolute URI but this server's own scheme (resource-uri.ts has the rules). */
const publishableUri = /^[A-Za-z][A-Za-z0-9+.-]*:/;
const ownScheme = /^context-hub:/i;
/** A URI longer than this names no publication (a template's values may take a read URI past the published length). */
const publishedReadChars = 8 * resourceUriMaxChars;
/** Published URIs per resources/list page, and the prefix of the cursors that page through them. */
const publishedPage = 50;
const publishedCursor = "published:";

/** The caller's own URI templates, as resources/templates/list shows them beside the built-in ones (at most 100). */
export async function publishedTemplates({ principal, clients }: EntryReader): Promise<ResourceTemplate[]> {
  const page = await clients.publications.list(principal, { templatesOnly: true, limit: 100, cursor: "" });
  return page.publications.map((publication) => ({
    uriTemplate: publication.uri,
    name: publication.uri,
    title: publication.uri,
    description:
      publication.description === ""
        ? `Your template over entry ${publication.id}: its text, with each {{name}} placeholder filled from the URI read.`
        : publication.description,
    mimeType: textMimeType,
  }));
}

/** Where a URI points. */
type ResourceAddress =
  | { form: "entry"; id: string }
  | { form: "version"; id: string; version: number }
  | { form: "image"; id: string; ordinal: number }
  | { form: "artifact"; id: string; sha256: string };

const uriPattern =
  /^context-hub:\/\/entries\/([^/?#]+)(?:\/(versions|images)\/(0|[1-9][0-9]{0,8})|\/artifacts\/([0-9a-f]{64}))?$/;

/**
 * The entry, version or image a URI names. A URI of no form this server
 * serves is an error of its own: it says nothing of any entry. It names no
 * resource here all the same, so it carries the URI as `data` like the
 * resource-not-found error (SEP-2164: the requested URI in `data.uri`).
 */
export function parseResourceUri(uri: string): ResourceAddress {
  const match = uriPattern.exec(uri);
  const id = match?.[1];
  if (match === null || id === undefined || !entryIdPattern.test(id))
    throw new McpRequestError(
      invalidParams,
      `invalid resource URI ${JSON.stringify(uri.slice(0, 200))}: Context Hub serves ${resourceTemplates.map((template) => template.uriTemplate).join(", ")}, with a full lower-case entry id (resources/list gives the URIs)`,
      { uri },
    );
  if (match[4] !== undefined) return { form: "artifact", id, sha256: match[4] };
  const number = match[3] === undefined ? undefined : Number(match[3]);
  if (number === undefined) return { form: "entry", id };
  if (match[2] === "versions") {
    if (number === 0)
      throw new McpRequestError(invalidParams, `invalid resource URI ${uri}: versions count from 1`, { uri });
    return { form: "version", id, version: number };
  }
  return { form: "image", id, ordinal: number };
}

/**
 * The one answer for a URI that names nothing the caller may read: hidden
 * and missing read the same (invariant I-2). The code is -32602 with the URI
 * as `data`, the resource-not-found error of MCP 2026-07-28 (earlier SDKs
 * sent the same).
 */
function resourceNotFound(uri: string): McpRequestError {
  return new McpRequestError(
    invalidParams,
    `resource not found: ${uri} names nothing you may read (resources/list gives the URIs)`,
    { uri },
  );
}

/** The resource handlers bound to one caller. */
export interface ResourceHandlers {
  list(cursor: string | undefined): Promise<{ resources: ListedResource[]; nextCursor?: string }>;
  listTemplates(): Promise<{ resourceTemplates: ResourceTemplate[] }>;
  read(uri: string): Promise<{ contents: ResourceContents[] }>;
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
async function readEntry(
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
async function readVersion(reader: EntryReader, uri: string, id: string, version: number): Promise<ResourceContents[]> {
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
async function readImage(reader: EntryReader, uri: string, id: string, ordinal: number): Promise<ResourceContents[]> {
  const entry = await currentEntry(reader, uri, id, true);
  const image = entry.images.find((candidate) => candidate.ordinal === ordinal);
  if (image?.data === undefined) throw resourceNotFound(uri);
  return [{ uri, mimeType: image.mime_type, blob: image.data }];
}

/** A file the entry links, when the caller may read the entry and the file; at most `artifactReadBytes`. */
async function readArtifact(reader: EntryReader, uri: string, id: string, sha256: string): Promise<ResourceContents[]> {
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

/**
 * What a URI the caller published serves (its text, with a template's values
 * filled in; one image; one linked file), under the URI read. A URI the caller
 * never published, or whose entry, image or file it can no longer read, is
 * the one resource-not-found answer.
 */
async function readPublished(reader: EntryReader, uri: string): Promise<ResourceContents[]> {
  if (uri.length > publishedReadChars) throw resourceNotFound(uri);
  let published;
  try {
    published = await reader.clients.publications.resolve(reader.principal, uri);
  } catch (error) {
    if (isContextHubError(error) && error.code === "ENTRY_NOT_FOUND") throw resourceNotFound(uri);
    throw error;
  }
  const { entryId, target } = published;
  if (target.kind === "image") return readImage(reader, uri, entryId, target.ordinal);
  if (target.kind === "artifact") return readArtifact(reader, uri, entryId, target.sha256);
  return readEntry(reader, uri, entryId, published);
}

/** A page of the caller's published URIs (templates are listed by resources/templates/list), as resources. */
async function listPublished({ principal, clients }: EntryReader, cursor: string) {
  const page = await clients.publications.list(principal, { templatesOnly: false, limit: publishedPage, cursor });
  const resources: ListedResource[] = page.publications
    .filter((publication) => !publication.template)
    .map((publication) => ({
      uri: publication.uri,
      name: publication.uri,
      ...optional("description", publication.description === "" ? undefined : publication.description),
      mimeType: publication.serves === "text" ? textMimeType : "application/octet-stream",
      ...(publication.updated_at === null ? {} : { annotations: { lastModified: publication.updated_at } }),
      _meta: { entry_id: publication.id, serves: publication.serves },
    }));
  return { resources, nextCursor: page.nextCursor };
}

/** A page of the entries the caller may read, as resources; the fixed documents head the first page. */
async function listEntries(
  { principal, clients }: EntryReader,
  documents: ListedResource[],
  cursor: string | undefined,
): Promise<{ resources: ListedResource[]; nextCursor?: string }> {
  const page = await pageOfEntries(clients.entries, principal, {}, cursor, "resources/list");
  const entries = page.results.map((entry) => ({
    uri: entryUri(entry.id),
    name:
      (entry.title === null ? undefined : neutraliseMarkers(entry.title)) ??
      describeEntry("", entry.preview, nameChars) ??
      entry.id,
    ...optional("title", entry.title === null ? undefined : neutraliseMarkers(entry.title)),
    ...optional("description", describeEntry(entry.summary, entry.preview)),
    mimeType: textMimeType,
    ...(entry.updated_at === null ? {} : { annotations: { lastModified: entry.updated_at } }),
  }));
  const resources = cursor === undefined ? [...documents, ...entries] : entries;
  return page.nextCursor === undefined ? { resources } : { resources, nextCursor: page.nextCursor };
}

/**
 * The resource handlers for `principal`, or undefined when its scopes do not
 * include reading (then the server declares no resources capability at all).
 */
export function resourceHandlersFor(
  principal: Principal,
  peers: Peers,
  logger: Logger,
  documents: readonly StaticResource[] = [],
): ResourceHandlers | undefined {
  if (!principal.scopes.includes(resourceScope)) return undefined;
  const reader: EntryReader = { principal, clients: gatewayClientsFor(peers) };
  // The fixed documents head the first page; they say nothing of any entry, so every reader sees the same.
  const listedDocuments: ListedResource[] = documents.map(({ uri, name, title, description, mimeType, _meta }) => ({
    uri,
    name,
    title,
    description,
    mimeType,
    ...(_meta === undefined ? {} : { _meta }),
  }));
  return {
    async list(cursor) {
      try {
        // The caller's published URIs come first (cursors "published:…"), then the entries it may read.
        if (cursor === undefined || cursor.startsWith(publishedCursor)) {
          const published = await listPublished(reader, cursor?.slice(publishedCursor.length) ?? "");
          const head = cursor === undefined ? [...listedDocuments, ...published.resources] : published.resources;
          if (published.nextCursor !== "")
            return { resources: head, nextCursor: `${publishedCursor}${published.nextCursor}` };
          const entries = await listEntries(reader, [], undefined);
          return { ...entries, resources: [...head, ...entries.resources] };
        }
        return await listEntries(reader, listedDocuments, cursor);
      } catch (error) {
        throw toRequestError(error, logger, "resources/list");
      }
    },

    async listTemplates() {
      try {
        return { resourceTemplates: [...resourceTemplates, ...(await publishedTemplates(reader))] };
      } catch (error) {
        throw toRequestError(error, logger, "resources/templates/list");
      }
    },

    async read(uri) {
      const document = documents.find((candidate) => candidate.uri === uri);
      if (document !== undefined)
        return { contents: [{ uri, mimeType: document.mimeType, text: document.text, _meta: document._meta ?? {} }] };
      try {
        if (!ownScheme.test(uri) && publishableUri.test(uri)) return { contents: await readPublished(reader, uri) };
        const address = parseResourceUri(uri);
        const contents =
          address.form === "entry"
            ? await readEntry(reader, uri, address.id)
            : address.form === "version"
              ? await readVersion(reader, uri, address.id, address.version)
              : address.form === "image"
                ? await readImage(reader, uri, address.id, address.ordinal)
                : await readArtifact(reader, uri, address.id, address.sha256);
        return { contents };
      } catch (error) {
        throw toRequestError(error, logger, "resources/read");
      }
    },
  };
}
