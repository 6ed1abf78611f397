/**
 * Artifacts as every layer of the store speaks of them: references to
 * content-addressed bytes, uploads in progress, the requests of the artifact
 * service and the checks of those requests. Pure rules, no SQL and no
 * transport.
 */
import { ContextHubError, invalidArgument } from "@context-hub/common";
import type { Visibility } from "../model/entry-values.js";
import { hasNul, validateThreadId } from "../model/field-validation.js";

/** An artifact's limits; the size limit is the store's configuration (`STORE_ARTIFACT_MAX_BYTES`). */
export const artifactLimits = {
  /** Bytes per stored chunk: a range read touches only the chunks it overlaps. */
  chunkBytes: 256 * 1024,
  /** Bytes one append or one put may carry in a single call, well inside a gRPC message. */
  appendBytes: 8 * 1024 * 1024,
  /** Bytes one read returns at most. */
  readBytes: 4 * 1024 * 1024,
  mediaTypeChars: 255,
  filenameChars: 255,
  defaultPage: 20,
  maxPage: 100,
} as const;

/** What the artifact service is configured with. */
export interface ArtifactSettings {
  /** Largest file, in bytes. */
  maxBytes: number;
  /** How long an upload may stay uncommitted. */
  uploadTtlMs: number;
  now: () => Date;
}

/** One reference to stored bytes: what a caller sees as an artifact. */
export interface ArtifactRecord {
  id: string;
  sha256: string;
  size: number;
  mediaType: string;
  filename: string;
  owner: string;
  namespace: string;
  visibility: Visibility;
  createdAt: Date;
  updatedAt: Date;
}

/** An upload in progress. */
export interface UploadRecord {
  id: string;
  sha256: string;
  size: number;
  mediaType: string;
  filename: string;
  namespace: string;
  visibility: Visibility;
  received: number;
  expiresAt: Date;
}

/** Where a reference lives and how it is described; the bytes come separately. */
export interface ArtifactTarget {
  namespace: string;
  visibility: Visibility;
  mediaType: string;
  filename: string;
}

/** What a caller sends to describe a file, before checks. Empty strings take the defaults. */
export interface ArtifactDescription {
  namespace: string;
  visibility: string;
  mediaType: string;
  filename: string;
}

export interface PutArtifactRequest extends ArtifactDescription {
  data: Uint8Array;
  /** Empty: not declared; otherwise the bytes must hash to it. */
  sha256: string;
}

export interface BeginUploadRequest extends ArtifactDescription {
  sha256: string;
  size: number;
}

export interface AppendUploadRequest {
  uploadId: string;
  offset: number;
  data: Uint8Array;
}

/** Which reference a read names: by hash, and optionally its owner and namespace when several are visible. */
export interface ArtifactSelector {
  sha256: string;
  owner: string;
  namespace: string;
}

export interface ReadArtifactRequest extends ArtifactSelector {
  offset: number;
  /** 0: as much as one read returns. */
  length: number;
}

export interface ArtifactBytes {
  artifact: ArtifactRecord;
  offset: number;
  data: Uint8Array;
}

export type ArtifactRole = "mine" | "";

export interface ListArtifactsRequest {
  role: string;
  namespace: string;
  limit: number;
  cursor: string;
}

export interface ArtifactPage {
  artifacts: ArtifactRecord[];
  nextCursor: string;
}

export interface DeleteArtifactRequest {
  sha256: string;
  /** Empty: the caller's own namespace. */
  namespace: string;
  /** Empty: the caller. Tenant admins and writers of a shared namespace may name another owner. */
  owner: string;
}

export interface DeleteArtifactResult {
  artifact: ArtifactRecord;
  /** Whether that was the last reference, so the bytes were removed with it. */
  bytesRemoved: boolean;
}

const shaPattern = /^[0-9a-f]{64}$/;
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const mediaTypePattern = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/;

/** A SHA-256 as 64 lowercase hex digits; uppercase is accepted and lowered. */
export function validateSha256(sha256: string, field = "sha256"): string {
  const lowered = sha256.toLowerCase();
  if (!shaPattern.test(lowered))
    throw invalidArgument(
      `${field} must be a SHA-256 as 64 hex digits (got ${JSON.stringify(sha256.slice(0, 80))})`,
      "hash the file's bytes with SHA-256 (sha256sum) and send the hex digest",
    );
  return lowered;
}

/** Whether `id` is shaped like an upload or reference id; anything else is answered as one that does not exist. */
export function isUuid(id: string): boolean {
  return uuidPattern.test(id);
}

function validateVisibility(visibility: string): Visibility {
  if (visibility === "") return "shared";
  if (visibility !== "private" && visibility !== "shared" && visibility !== "tenant")
    throw invalidArgument(`visibility must be "private", "shared" or "tenant" (got ${JSON.stringify(visibility)})`);
  return visibility;
}

function validateMediaType(mediaType: string): string {
  if (mediaType === "") return "application/octet-stream";
  const lowered = mediaType.trim().toLowerCase();
  if (lowered.length > artifactLimits.mediaTypeChars || !mediaTypePattern.test(lowered))
    throw invalidArgument(
      `media_type must be a type/subtype such as "image/png" or "application/pdf", without parameters (got ${JSON.stringify(mediaType.slice(0, 80))})`,
    );
  return lowered;
}

function validateFilename(filename: string): string {
  if (filename.length > artifactLimits.filenameChars)
    throw invalidArgument(
      `filename must be at most ${artifactLimits.filenameChars} characters (got ${filename.length})`,
    );
  // Control characters and path separators would let a name break a Content-Disposition header or a path.
  if (hasNul(filename) || /[\u0000-\u001f\u007f/\\]/.test(filename))
    throw invalidArgument("filename must be a bare name: no control characters, '/' or '\\'");
  return filename;
}

/** Where a new reference goes and how it is described, checked; the namespace defaults to the caller's own. */
export function validateTarget(request: ArtifactDescription, subject: string): ArtifactTarget {
  return {
    namespace: validateThreadId(request.namespace === "" ? subject : request.namespace, "namespace"),
    visibility: validateVisibility(request.visibility),
    mediaType: validateMediaType(request.mediaType),
    filename: validateFilename(request.filename),
  };
}

/** A declared size: a whole number of bytes within the configured limit. */
export function validateSize(size: number, maxBytes: number): number {
  if (!Number.isSafeInteger(size) || size < 0)
    throw invalidArgument(`size must be a whole number of bytes (got ${size})`);
  if (size > maxBytes) throw tooLarge(size, maxBytes);
  return size;
}

/** The answer for a file over the configured limit. */
export function tooLarge(size: number, maxBytes: number): ContextHubError {
  return invalidArgument(
    `the file is ${size} bytes; artifacts are at most ${maxBytes} bytes`,
    "store a smaller file, or split it into several artifacts",
  );
}

/** One read's range, checked against nothing but its shape (the end is checked against the artifact). */
export function validateRange(offset: number, length: number): { offset: number; length: number } {
  if (!Number.isSafeInteger(offset) || offset < 0)
    throw invalidArgument(`offset must be a whole number of bytes, 0 or more (got ${offset})`);
  if (!Number.isSafeInteger(length) || length < 0 || length > artifactLimits.readBytes)
    throw invalidArgument(`length must be 0 to ${artifactLimits.readBytes} bytes (got ${length})`);
  return { offset, length: length === 0 ? artifactLimits.readBytes : length };
}

/** A listing's filters, checked. */
export function validateListing(request: ListArtifactsRequest): {
  role: ArtifactRole;
  namespace: string;
  limit: number;
} {
  if (request.role !== "mine" && request.role !== "")
    throw invalidArgument(
      `role must be "mine" or empty for every artifact you can see (got ${JSON.stringify(request.role)})`,
    );
  if (!Number.isInteger(request.limit) || request.limit < 0 || request.limit > artifactLimits.maxPage)
    throw invalidArgument(`limit must be 1 to ${artifactLimits.maxPage} (got ${request.limit})`);
  return {
    role: request.role,
    namespace: request.namespace === "" ? "" : validateThreadId(request.namespace, "namespace"),
    limit: request.limit === 0 ? artifactLimits.defaultPage : request.limit,
  };
}

/**
 * The answer for an artifact that does not exist, or exists but the caller
 * may not see it: one message for both, so a hash tells nobody whether the
 * file is stored.
 */
export function artifactNotFound(sha256: string): ContextHubError {
  return new ContextHubError("ENTRY_NOT_FOUND", `no artifact ${JSON.stringify(sha256)} that you can see`, {
    remedy: "list_artifacts shows the artifacts you stored and those in namespaces shared with you",
  });
}

/** The answer for an upload that does not exist, has expired, was committed, or is someone else's. */
export function uploadNotFound(id: string): ContextHubError {
  return new ContextHubError("ENTRY_NOT_FOUND", `no upload ${JSON.stringify(id)} in progress that you started`, {
    remedy: "uploads expire and end at their commit; begin a new one with begin_artifact_upload",
  });
}
