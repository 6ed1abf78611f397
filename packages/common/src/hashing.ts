import { createHash } from "node:crypto";

/** The content hash of an entry's text: lowercase hex SHA-256 of its UTF-8 bytes. */
export function contentHash(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}
