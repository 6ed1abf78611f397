/**
 * The entries a caller may read, served as MCP resources: `resources/list`
 * pages through them, `resources/templates/list` names the URI forms, and
 * `resources/read` returns an entry's text (with its images as blobs), a kept
 * version's text, one image, or one file the entry links (resource-reads.ts),
 * under its context-hub:// URI or a URI the caller published for it
 * (published-resources.ts: the caller's own publications are listed by their
 * URIs, its templates beside the built-in ones). Every read goes through the
 * store's ordinary listing, fetch and history, so the access predicate and
 * trust states hold exactly as for the tools; quarantined entries are not
 * served. The text read is stored text, data rather than instructions, and
 * is served fenced as the tools fence it (untrusted-text.ts: markers with a
 * nonce drawn for each read), its trust state in `_meta` as well.
 * SDK-neutral: both server generations register these handlers.
 */
import type { Logger } from "@context-hub/common";
import { gatewayClientsFor } from "../clients/gateway-clients.js";
import type { Peers } from "../clients/peers.js";
import type { Principal } from "../principal.js";
import { describeEntry, entryIdPattern, optional, pageOfEntries } from "./entry-listing.js";
import {
  isPublishableUri,
  listPublished,
  publishedCursor,
  publishedTemplates,
  readPublished,
} from "./published-resources.js";
import { invalidParams, McpRequestError, toRequestError } from "./request-errors.js";
import {
  artifactReadBytes,
  entriesRoot,
  entryUri,
  readArtifact,
  readEntry,
  readImage,
  readVersion,
  textMimeType,
  type EntryReader,
  type ListedResource,
  type ResourceContents,
  type ResourceTemplate,
} from "./resource-reads.js";
import { neutraliseMarkers } from "./untrusted-text.js";

export type { ListedResource, ResourceContents, ResourceTemplate } from "./resource-reads.js";

/** The scope a caller needs to see resources: the read scope, as for the reading tools. */
export const resourceScope = "context:read";

/** The longest name a listed entry without a title gets from the start of its text. */
const nameChars = 80;

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

/** The resource handlers bound to one caller. */
export interface ResourceHandlers {
  list(cursor: string | undefined): Promise<{ resources: ListedResource[]; nextCursor?: string }>;
  listTemplates(): Promise<{ resourceTemplates: ResourceTemplate[] }>;
  read(uri: string): Promise<{ contents: ResourceContents[] }>;
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
        if (isPublishableUri(uri)) return { contents: await readPublished(reader, uri) };
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
