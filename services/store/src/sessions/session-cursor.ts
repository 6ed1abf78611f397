/** The cursor of a session listing: the last row's id, opaque to callers. */
import { invalidArgument } from "@context-hub/common";
import { isSessionId } from "./session-model.js";

/** The cursor that continues after the session `lastId`. */
export function encodeSessionCursor(lastId: string): string {
  return Buffer.from(JSON.stringify(["sessions", lastId]), "utf8").toString("base64url");
}

/** The id a cursor continues after; undefined for the first page; INVALID_ARGUMENT for a cursor this store did not give. */
export function decodeSessionCursor(cursor: string): string | undefined {
  if (cursor === "") return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    parsed = undefined;
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== 2 ||
    parsed[0] !== "sessions" ||
    typeof parsed[1] !== "string" ||
    !isSessionId(parsed[1])
  )
    throw invalidArgument(
      "cursor is not one list_sessions gave",
      "pass the next_cursor of the previous page, or none for the first page",
    );
  return parsed[1];
}
