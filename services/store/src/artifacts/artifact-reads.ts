/**
 * The artifact service's reads: an artifact's reference, a range of its
 * bytes, and a page of the artifacts the caller may see. A file the caller
 * may not see answers as one never stored.
 */
import { invalidArgument } from "@context-hub/common";
import { requirePrincipal, type Principal } from "../model/principal.js";
import { decodeArtifactCursor, encodeArtifactCursor } from "./artifact-cursor.js";
import {
  artifactLimits,
  artifactNotFound,
  validateListing,
  validateRange,
  validateSha256,
  type ArtifactBytes,
  type ArtifactPage,
  type ArtifactRecord,
  type ArtifactSelector,
  type ListArtifactsRequest,
  type ReadArtifactRequest,
} from "./artifact-model.js";
import type { ArtifactRepository } from "./artifact-repository.js";

/** The first and last chunk a range of `artifact` overlaps; throws when the range starts past the end. */
function chunksOf(artifact: ArtifactRecord, offset: number, length: number) {
  if (offset > artifact.size || (offset === artifact.size && artifact.size > 0))
    throw invalidArgument(
      `offset ${offset} is past the end of artifact ${JSON.stringify(artifact.sha256)}, which is ${artifact.size} bytes`,
      `read from an offset below ${artifact.size}`,
    );
  const end = Math.min(offset + length, artifact.size);
  if (end === offset) return undefined;
  return {
    first: Math.floor(offset / artifactLimits.chunkBytes),
    last: Math.floor((end - 1) / artifactLimits.chunkBytes),
  };
}

function validateSelector(selector: ArtifactSelector): ArtifactSelector {
  return { sha256: validateSha256(selector.sha256), owner: selector.owner, namespace: selector.namespace };
}

/** The artifact a selector names, if the caller may see it. */
export async function getArtifact(
  repository: ArtifactRepository,
  principal: Principal | undefined,
  selector: ArtifactSelector,
): Promise<ArtifactRecord> {
  const caller = requirePrincipal(principal, "context:read");
  const validated = validateSelector(selector);
  const artifact = await repository.find(caller, validated);
  if (artifact === undefined) throw artifactNotFound(validated.sha256);
  return artifact;
}

/** A range of an artifact's bytes, read from the chunks it overlaps. */
export async function readArtifact(
  repository: ArtifactRepository,
  principal: Principal | undefined,
  request: ReadArtifactRequest,
): Promise<ArtifactBytes> {
  const caller = requirePrincipal(principal, "context:read");
  const selector = validateSelector(request);
  const range = validateRange(request.offset, request.length);
  const result = await repository.read(caller, selector, (artifact) => chunksOf(artifact, range.offset, range.length));
  if (result === undefined) throw artifactNotFound(selector.sha256);
  const { artifact, chunks } = result;
  if (chunks.length === 0) return { artifact, offset: range.offset, data: new Uint8Array(0) };
  const start = range.offset - chunks[0]!.ordinal * artifactLimits.chunkBytes;
  const end = start + Math.min(range.length, artifact.size - range.offset);
  return {
    artifact,
    offset: range.offset,
    data: Buffer.concat(chunks.map((chunk) => chunk.data)).subarray(start, end),
  };
}

/** One page of the artifacts the caller may see, newest first. */
export async function listArtifacts(
  repository: ArtifactRepository,
  principal: Principal | undefined,
  request: ListArtifactsRequest,
): Promise<ArtifactPage> {
  const caller = requirePrincipal(principal, "context:read");
  const listing = validateListing(request);
  const before = decodeArtifactCursor(request.cursor);
  const rows = await repository.list(caller, { ...listing, before }, listing.limit);
  const page = rows.slice(0, listing.limit);
  const last = page.at(-1);
  return {
    artifacts: page,
    nextCursor: rows.length > listing.limit && last !== undefined ? encodeArtifactCursor(last.id) : "",
  };
}
