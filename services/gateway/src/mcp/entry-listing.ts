/**
 * What the MCP listings of entries (prompts/list, resources/list) share: a
 * page of the store's ordinary listing, so the access predicate and trust
 * states hold exactly as for the tools, resumed from a cursor that pins the
 * first page's snapshot so entries written meanwhile cannot shift pages.
 */
import type { SearchFilterArgs } from "../clients/search-filter.js";
import type { EntriesClient } from "../clients/entries-client.js";
import type { Principal } from "../principal.js";
import { invalidParams, McpRequestError } from "./request-errors.js";
import { neutraliseMarkers } from "./untrusted-text.js";

/** Entries per listing page. */
export const entryPageSize = 50;

/** A full entry id, the only form the MCP methods take (no id prefixes). */
export const entryIdPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The longest description a listed entry gets when it is taken from the entry's text. */
const descriptionChars = 300;

/** One listed entry, as the store's listing gives it. */
export type ListedEntry = Awaited<ReturnType<EntriesClient["list"]>>["results"][number];

/** Where a listing resumes: the offset, and the newest creation time the first page saw. */
interface ListCursor {
  offset: number;
  before: string;
}

function encodeCursor(cursor: ListCursor): string {
  return Buffer.from(JSON.stringify({ o: cursor.offset, b: cursor.before })).toString("base64url");
}

function decodeCursor(value: string, method: string): ListCursor {
  try {
    const parsed = JSON.parse(Buffer.from(value, "base64url").toString("utf8")) as { o?: unknown; b?: unknown };
    if (
      typeof parsed.o === "number" &&
      Number.isSafeInteger(parsed.o) &&
      parsed.o > 0 &&
      typeof parsed.b === "string" &&
      !Number.isNaN(Date.parse(parsed.b))
    )
      return { offset: parsed.o, before: parsed.b };
  } catch {
    // Falls through to the one error every malformed cursor gets.
  }
  throw new McpRequestError(invalidParams, `invalid cursor: pass a nextCursor exactly as ${method} returned it`);
}

/**
 * One page of the entries matching `filter` that the caller may read,
 * newest first, from `cursor` (undefined for the first page), and the cursor
 * of the next page when there is one. `method` names the listing in the
 * error a malformed cursor gets.
 */
export async function pageOfEntries(
  entries: EntriesClient,
  principal: Principal,
  filter: SearchFilterArgs,
  cursor: string | undefined,
  method: string,
): Promise<{ results: ListedEntry[]; nextCursor?: string }> {
  const at = cursor === undefined ? undefined : decodeCursor(cursor, method);
  const page = await entries.list(
    principal,
    { ...filter, ...(at === undefined ? {} : { end_date: at.before }) },
    { limit: entryPageSize, offset: at?.offset ?? 0 },
  );
  const before = at?.before ?? snapshotAfter(page.results.map((entry) => entry.created_at));
  const offset = (at?.offset ?? 0) + page.results.length;
  return page.hasMore && before !== undefined
    ? { results: page.results, nextCursor: encodeCursor({ offset, before }) }
    : { results: page.results };
}

/** The entry's summary, or else (a short text has none) the start of its text, cut to `chars`. */
export function describeEntry(summary: string, text: string, chars = descriptionChars): string | undefined {
  const source = summary.trim() !== "" ? summary.trim() : text.trim();
  if (source === "") return undefined;
  // Stored text named in a listing is not fenced, so nothing in it may pass for a fence marker either.
  return neutraliseMarkers(source.length > chars ? `${source.slice(0, chars - 1)}…` : source);
}

/** `{ [key]: value }` when value is defined, else nothing (the SDK's types want absent, not undefined). */
export function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

/**
 * The bound later pages are read under: just after the newest creation time
 * of the first page (the listing is newest first), in the store's own clock,
 * so an entry written while the caller pages does not shift the pages.
 */
function snapshotAfter(createdAt: readonly (string | null)[]): string | undefined {
  const newest = createdAt.reduce<number | undefined>((max, iso) => {
    const time = iso === null ? Number.NaN : Date.parse(iso);
    return Number.isNaN(time) ? max : Math.max(max ?? time, time);
  }, undefined);
  return newest === undefined ? undefined : new Date(newest + 1).toISOString();
}
