import { grpcMaxMessageBytes } from "@context-hub/common";
import { limits } from "./input-schemas.js";

/** The most bytes one character of a JSON string can take in a body: `\uXXXX`. */
const escapedCharBytes = 6;
/** Room for the JSON-RPC envelope, field names, punctuation and the small fields (source, visibility, dates, flags, versions). */
const envelopeBytes = 16 * 1024;

/**
 * The encoded size of the largest legal entry a write can carry: thread,
 * text, tags, metadata and idempotency key at the worst JSON escaping a
 * client may use, and every image at the largest base64 the schema takes.
 */
export function largestEntryBytes(): number {
  const characters = limits.threadIdChars + limits.textChars + limits.tags * (limits.tagChars + 3) + 200;
  const image = Math.ceil((limits.imageBytes * 4) / 3) + 4 + 64;
  return escapedCharBytes * (characters + limits.metadataBytes) + limits.images * image + envelopeBytes;
}

/**
 * The encoded size of the most one commit to the store can carry: its gRPC
 * message limit as base64 (images are the only binary, and they dominate),
 * plus an entry's text and metadata at the worst escaping. A body above it
 * cannot be a write that could be stored, whatever the per-field limits.
 */
export function largestCommitBytes(): number {
  return (
    Math.ceil((grpcMaxMessageBytes * 4) / 3) +
    escapedCharBytes * (limits.textChars + limits.metadataBytes) +
    envelopeBytes
  );
}

/**
 * The largest body a write can legally need: the largest entry, but never
 * more than one commit can carry. A batch shares the bound: its entries
 * together fit in it (send more batches for more).
 */
export const writeBodyLimitBytes = Math.min(largestEntryBytes(), largestCommitBytes());

/**
 * The body limit for a caller without `context:write`: every read, review
 * and admin call fits in a few kilobytes (ids, filters, a query), and a
 * batch of them in far less than this.
 */
export const readBodyLimitBytes = 1024 * 1024;
