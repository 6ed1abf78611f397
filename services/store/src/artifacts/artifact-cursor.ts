/** The cursor of an artifact listing: the last row's id, opaque to callers. */
import { decodeListingCursor, encodeListingCursor } from "../model/listing-cursor.js";
import { isUuid } from "./artifact-model.js";

/** The cursor that continues after the artifact reference `lastId`. */
export function encodeArtifactCursor(lastId: string): string {
  return encodeListingCursor(["artifacts", lastId]);
}

/** The id a cursor continues after; undefined for the first page; INVALID_ARGUMENT for a cursor this store did not give. */
export function decodeArtifactCursor(cursor: string): string | undefined {
  return decodeListingCursor(cursor, "list_artifacts", 2, ([kind, id]) => kind === "artifacts" && isUuid(id!))?.[1];
}
