/** The cursor of a session listing: the last row's id, opaque to callers. */
import { decodeListingCursor, encodeListingCursor } from "../model/listing-cursor.js";
import { isSessionId } from "./session-model.js";

/** The cursor that continues after the session `lastId`. */
export function encodeSessionCursor(lastId: string): string {
  return encodeListingCursor(["sessions", lastId]);
}

/** The id a cursor continues after; undefined for the first page; INVALID_ARGUMENT for a cursor this store did not give. */
export function decodeSessionCursor(cursor: string): string | undefined {
  return decodeListingCursor(cursor, "list_sessions", 2, ([kind, id]) => kind === "sessions" && isSessionId(id!))?.[1];
}
