/** The cursor of an artifact listing: the last row's id, opaque to callers. */
import { invalidArgument } from "@context-hub/common";
import { isUuid } from "./artifact-model.js";

/** The cursor that continues after the artifact reference `lastId`. */
export function encodeArtifactCursor(lastId: string): string {
  return Buffer.from(JSON.stringify(["artifacts", lastId]), "utf8").toString("base64url");
}

/** The id a cursor continues after; undefined for the first page; INVALID_ARGUMENT for a cursor this store did not give. */
export function decodeArtifactCursor(cursor: string): string | undefined {
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
    parsed[0] !== "artifacts" ||
    typeof parsed[1] !== "string" ||
    !isUuid(parsed[1])
  )
    throw invalidArgument(
      "cursor is not one list_artifacts gave",
      "pass the next_cursor of the previous page, or none for the first page",
    );
  return parsed[1];
}
