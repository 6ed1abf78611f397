/**
 * The artifacts an entry links, as MCP content: `resources/read` of
 * `context-hub://entries/{id}/artifacts/{sha256}` and the embedded resources
 * of a prompt that links files. An entry's links are what open its files to
 * its readers (the store lets whoever may see an entry read the linked files
 * its owner holds), so every read names the entry's owner and goes through
 * the store's ordinary artifact reads as the caller. A file is served as it
 * was stored, as GET /artifacts serves it: text when its media type is
 * textual and its bytes are UTF-8, base64 otherwise.
 */
import type { ArtifactsClient, ArtifactView } from "../clients/artifacts-client.js";
import type { Principal } from "../principal.js";

/** Bytes asked of the store per read. */
const readBytes = 1024 * 1024;

/** The URI of a file an entry links. */
export const entryArtifactUri = (id: string, sha256: string) => `context-hub://entries/${id}/artifacts/${sha256}`;

/** What an entry must tell about itself for its files to be read. */
export interface LinkingEntry {
  id: string;
  owner: string;
  artifacts: readonly string[];
}

/** A file's contents as MCP carries them: text, or base64 bytes. */
export type ArtifactContents =
  | { uri: string; mimeType: string; text: string }
  | { uri: string; mimeType: string; blob: string };

/** A linked file: its description, and its bytes when it is no larger than the read allowed. */
export type LinkedArtifact = { artifact: ArtifactView; data: Uint8Array | undefined };

const textualTypes =
  /^(text\/[\w.+-]+|application\/(json|xml|yaml|x-yaml|toml|javascript|x-ndjson|[\w.-]+\+(json|xml)))$/i;

/** The media type without parameters, lower-cased. */
const bareType = (mediaType: string) => mediaType.split(";")[0]!.trim().toLowerCase();

/**
 * A linked file of `entry`, as the caller may read it, with its bytes when
 * it has at most `maxBytes`; undefined when the entry does not link it. The
 * store's ENTRY_NOT_FOUND, when the caller may not read it, reads as any
 * file never stored.
 */
export async function readLinkedArtifact(
  artifacts: ArtifactsClient,
  principal: Principal,
  entry: LinkingEntry,
  sha256: string,
  maxBytes: number,
): Promise<LinkedArtifact | undefined> {
  if (!entry.artifacts.includes(sha256)) return undefined;
  const selector = { sha256, owner: entry.owner, namespace: "" };
  const artifact = await artifacts.get(principal, selector);
  if (artifact.size > maxBytes) return { artifact, data: undefined };
  const data = new Uint8Array(artifact.size);
  const fixed = { sha256, owner: artifact.owner, namespace: artifact.namespace };
  for (let offset = 0; offset < artifact.size; ) {
    const piece = await artifacts.read(principal, fixed, offset, Math.min(readBytes, artifact.size - offset));
    if (piece.data.byteLength === 0) throw new Error(`artifact ${sha256} ended early at ${offset}`);
    data.set(piece.data, offset);
    offset += piece.data.byteLength;
  }
  return { artifact, data };
}

/** The media type a file is served under: its own, or bytes of no stated type. */
export const mediaTypeOf = (artifact: ArtifactView) =>
  artifact.media_type === "" ? "application/octet-stream" : artifact.media_type;

/** A file's bytes as MCP resource contents: text for a textual type in valid UTF-8, else a base64 blob. */
export function toArtifactContents(uri: string, artifact: ArtifactView, data: Uint8Array): ArtifactContents {
  const mimeType = mediaTypeOf(artifact);
  if (textualTypes.test(bareType(mimeType))) {
    try {
      return { uri, mimeType, text: new TextDecoder("utf-8", { fatal: true }).decode(data) };
    } catch {
      // Not UTF-8 after all: served as bytes.
    }
  }
  return { uri, mimeType, blob: Buffer.from(data).toString("base64") };
}
