/**
 * The URIs a caller published (PublicationsService, library.md#published-uris)
 * as resources: resources/list pages through them before the entries,
 * resources/templates/list adds the caller's templates to the built-in forms,
 * and resources/read resolves any URI outside this server's own scheme among
 * them, then reads what the publication names (resource-reads.ts).
 */
import { isContextHubError, resourceUriMaxChars } from "@context-hub/common";
import { optional } from "./entry-listing.js";
import {
  readArtifact,
  readEntry,
  readImage,
  resourceNotFound,
  textMimeType,
  type EntryReader,
  type ListedResource,
  type ResourceContents,
  type ResourceTemplate,
} from "./resource-reads.js";

/** The URIs a caller may have published: any absolute URI but this server's own scheme (resource-uri.ts has the rules). */
const publishableUri = /^[A-Za-z][A-Za-z0-9+.-]*:/;
const ownScheme = /^context-hub:/i;

/** Whether resources/read looks `uri` up among the caller's publications. */
export const isPublishableUri = (uri: string): boolean => !ownScheme.test(uri) && publishableUri.test(uri);
/** A URI longer than this names no publication (a template's values may take a read URI past the published length). */
const publishedReadChars = 8 * resourceUriMaxChars;
/** Published URIs per resources/list page, and the prefix of the cursors that page through them. */
const publishedPage = 50;
export const publishedCursor = "published:";

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

/**
 * What a URI the caller published serves (its text, with a template's values
 * filled in; one image; one linked file), under the URI read. A URI the caller
 * never published, or whose entry, image or file it can no longer read, is
 * the one resource-not-found answer.
 */
export async function readPublished(reader: EntryReader, uri: string): Promise<ResourceContents[]> {
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
export async function listPublished({ principal, clients }: EntryReader, cursor: string) {
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
