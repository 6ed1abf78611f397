/** The cursor of a handoff listing: the last row's id and the listing's order, opaque to callers. */
import { invalidArgument } from "@context-hub/common";
import { isHandoffId } from "./handoff-model.js";

/** The cursor that continues after the handoff `lastId` in the same order. */
export function encodeHandoffCursor(lastId: string, newestFirst: boolean): string {
  return Buffer.from(JSON.stringify([lastId, newestFirst ? "newest" : "oldest"]), "utf8").toString("base64url");
}

/**
 * The id a cursor continues after; undefined for the first page;
 * INVALID_ARGUMENT for a cursor this store did not give or one given for the
 * other order.
 */
export function decodeHandoffCursor(cursor: string, newestFirst: boolean): string | undefined {
  if (cursor === "") return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    parsed = undefined;
  }
  const order = newestFirst ? "newest" : "oldest";
  if (!Array.isArray(parsed) || parsed.length !== 2 || typeof parsed[0] !== "string" || !isHandoffId(parsed[0])) {
    throw invalidArgument(
      "cursor is not one list_handoffs gave",
      "pass the next_cursor of the previous page, or none for the first page",
    );
  }
  if (parsed[1] !== order)
    throw invalidArgument(
      `cursor continues a listing in the other order, not ${order} first`,
      "page with the order the first page was asked in",
    );
  return parsed[0];
}
