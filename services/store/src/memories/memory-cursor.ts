/** The cursor of a memory listing: the last row's (namespace, key, owner), opaque to callers. */
import { invalidArgument } from "@context-hub/common";

/** The cursor that continues after the row named by `last`. */
export function encodeCursor(last: [string, string, string]): string {
  return Buffer.from(JSON.stringify(last), "utf8").toString("base64url");
}

/** The row a cursor continues after; undefined for the first page; INVALID_ARGUMENT for a cursor this store did not give. */
export function decodeCursor(cursor: string): [string, string, string] | undefined {
  if (cursor === "") return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    parsed = undefined;
  }
  if (!Array.isArray(parsed) || parsed.length !== 3 || !parsed.every((part) => typeof part === "string")) {
    throw invalidArgument(
      "cursor is not one list_memories gave",
      "pass the next_cursor of the previous page, or none for the first page",
    );
  }
  return parsed as [string, string, string];
}
