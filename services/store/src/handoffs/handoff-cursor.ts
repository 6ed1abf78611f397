/** The cursor of a handoff listing: the last row's id and the listing's order, opaque to callers. */
import { invalidArgument } from "@context-hub/common";
import { decodeListingCursor, encodeListingCursor } from "../model/listing-cursor.js";
import { isHandoffId } from "./handoff-model.js";

/** The cursor that continues after the handoff `lastId` in the same order. */
export function encodeHandoffCursor(lastId: string, newestFirst: boolean): string {
  return encodeListingCursor([lastId, newestFirst ? "newest" : "oldest"]);
}

/**
 * The id a cursor continues after; undefined for the first page;
 * INVALID_ARGUMENT for a cursor this store did not give or one given for the
 * other order.
 */
export function decodeHandoffCursor(cursor: string, newestFirst: boolean): string | undefined {
  const parts = decodeListingCursor(cursor, "list_handoffs", 2, ([id]) => isHandoffId(id!));
  if (parts === undefined) return undefined;
  const order = newestFirst ? "newest" : "oldest";
  if (parts[1] !== order)
    throw invalidArgument(
      `cursor continues a listing in the other order, not ${order} first`,
      "page with the order the first page was asked in",
    );
  return parts[0];
}
