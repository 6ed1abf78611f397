/** The cursor of a memory listing: the last row's (namespace, key, owner), opaque to callers. */
import { decodeListingCursor, encodeListingCursor } from "../model/listing-cursor.js";

/** The cursor that continues after the row named by `last`. */
export function encodeCursor(last: [string, string, string]): string {
  return encodeListingCursor(last);
}

/** The row a cursor continues after; undefined for the first page; INVALID_ARGUMENT for a cursor this store did not give. */
export function decodeCursor(cursor: string): [string, string, string] | undefined {
  return decodeListingCursor(cursor, "list_memories", 3) as [string, string, string] | undefined;
}
