/** What a resource publication is, what the publication calls ask, and the checks that make a request valid. No SQL or transport here. */
import { ContextHubError, invalidArgument, type ParsedResourceUri } from "@context-hub/common";
import type { IdempotencyRequest } from "../model/idempotency-request.js";

export const publicationLimits = {
  descriptionChars: 500,
  /** Templates one principal holds: a resolve tries every one of them. */
  templates: 100,
  /** Publications (templates included) one principal holds. */
  publications: 10_000,
  /** A URI to resolve longer than this resolves to nothing (no publication is longer than 512 characters). */
  resolvedUriChars: 4_096,
  defaultPage: 20,
  maxPage: 100,
} as const;

/** A publication as its publisher sees it. */
export interface PublicationRecord {
  uri: string;
  template: boolean;
  entryId: string;
  /** The image it serves; undefined for the entry's text or a file. */
  imageOrdinal: number | undefined;
  /** The linked file it serves (hex SHA-256); "" for the entry's text or an image. */
  artifactSha256: string;
  description: string;
  createdAt: Date;
  updatedAt: Date;
}

/** What a publish stores: a checked URI and target. */
export interface PublicationWrite {
  parsed: ParsedResourceUri;
  entryId: string;
  imageOrdinal: number | undefined;
  artifactSha256: string;
  description: string;
}

export interface PublishResourceRequest {
  uri: string;
  entryId: string;
  imageOrdinal: number | undefined;
  artifactSha256: string;
  description: string;
  idempotency?: IdempotencyRequest<PublishResult> | undefined;
}

export interface PublishResult {
  publication: PublicationRecord;
  /** The URI was the caller's already and now serves the new target. */
  replaced: boolean;
}

export interface UnpublishResourceRequest {
  uri: string;
  idempotency?: IdempotencyRequest<PublicationRecord> | undefined;
}

export interface ListPublicationsRequest {
  templatesOnly: boolean;
  limit: number;
  cursor: string;
}

export interface PublicationPage {
  publications: PublicationRecord[];
  nextCursor: string;
}

export interface ResolvedPublication {
  publication: PublicationRecord;
  /** The values a template took from the URI, percent-decoded; empty for an exact URI. */
  variables: ReadonlyMap<string, string>;
}

/** A description: trimmed, up to 500 characters, without NUL; empty for none. */
export function validatePublicationDescription(description: string, field = "description"): string {
  const text = description.trim();
  if (text.length > publicationLimits.descriptionChars)
    throw invalidArgument(`${field} is ${text.length} characters; the limit is ${publicationLimits.descriptionChars}`);
  if (text.includes("\u0000")) throw invalidArgument(`${field} must not contain NUL characters`);
  return text;
}

/** A page size: 0 means the default; 1 to 100 otherwise. */
export function validatePublicationPage(limit: number, field = "limit"): number {
  if (limit === 0) return publicationLimits.defaultPage;
  if (!Number.isInteger(limit) || limit < 1 || limit > publicationLimits.maxPage)
    throw invalidArgument(`${field} must be 1 to ${publicationLimits.maxPage} (got ${limit})`);
  return limit;
}

/** A URI as an error message quotes it: a long one is cut, so a message stays short whatever the caller sent. */
function quoteUri(uri: string): string {
  return uri.length > 600 ? `${JSON.stringify(uri.slice(0, 600))}…` : JSON.stringify(uri);
}

/**
 * The one answer of a resolve that finds nothing: nothing published there,
 * another principal's publication, or a target the caller can no longer
 * read. It depends on the URI alone, so no cause can be told from another.
 */
export function resourceNotFound(uri: string): ContextHubError {
  return new ContextHubError("ENTRY_NOT_FOUND", `no resource at ${quoteUri(uri)}`);
}

/** An unpublish of a URI the caller has not published (its own namespace: this tells it nothing about others). */
export function publicationNotFound(uri: string): ContextHubError {
  return new ContextHubError("ENTRY_NOT_FOUND", `you have published nothing at ${quoteUri(uri)}`, {
    remedy: "give the URI exactly as you published it (a template by its template text)",
  });
}
