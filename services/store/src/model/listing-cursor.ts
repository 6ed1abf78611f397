/**
 * The opaque cursor of a paged listing: the parts that name the last row
 * shown (and whatever else the next page must match), as base64url JSON.
 * Every domain's listing (memories, handoffs, sessions, artifacts) pages
 * with one, so a cursor from elsewhere is refused the same way everywhere.
 */
import { invalidArgument } from "@context-hub/common";

/** The cursor that continues after the row named by `parts`. */
export function encodeListingCursor(parts: readonly string[]): string {
  return Buffer.from(JSON.stringify(parts), "utf8").toString("base64url");
}

/**
 * The parts of `cursor`; undefined for "" (the first page). A cursor that
 * is not `length` strings, or whose parts `accepts` refuses, is an
 * INVALID_ARGUMENT saying it is not one `tool` gave.
 */
export function decodeListingCursor(
  cursor: string,
  tool: string,
  length: number,
  accepts: (parts: readonly string[]) => boolean = () => true,
): string[] | undefined {
  if (cursor === "") return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    parsed = undefined;
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== length ||
    !parsed.every((part) => typeof part === "string") ||
    !accepts(parsed as string[])
  )
    throw invalidArgument(
      `cursor is not one ${tool} gave`,
      "pass the next_cursor of the previous page, or none for the first page",
    );
  return parsed as string[];
}
