/** The reads that follow a ranking: the listings of its page, and passages of its entries to rerank or read deeply. */
import { invalidArgument } from "@context-hub/common";
import type { StoredEntry } from "../model/entry-model.js";
import { isUuid } from "../model/ids.js";
import { requirePrincipal, type Principal } from "../model/principal.js";
import { validateSearchFilter, type SearchFilterInput } from "../model/search-filter.js";
import { findPassage, findPassages, outlineNodeFinder, passageScanLimit } from "./passages.js";
import {
  searchLimits,
  type PassageResult,
  type PassagesRequest,
  type SearchServiceDependencies,
} from "./search-model.js";

/** The listings of the visible entries among `ids` that pass `filter`, in the order of `ids`: the page a ranking of ids shows. */
export async function searchListings(
  dependencies: SearchServiceDependencies,
  principal: Principal | undefined,
  request: { ids: readonly string[]; filter: SearchFilterInput | undefined },
): Promise<StoredEntry[]> {
  const { repository } = dependencies;
  const caller = requirePrincipal(principal, "context:read");
  if (request.ids.length > searchLimits.maxRankingDepth)
    throw invalidArgument(`ids must list at most ${searchLimits.maxRankingDepth} entries (got ${request.ids.length})`);
  request.ids.forEach((id, index) => {
    if (!isUuid(id)) throw invalidArgument(`ids[${index}] must be a full entry id`);
  });
  const filter = validateSearchFilter(request.filter);
  if (filter.asOf !== undefined)
    throw invalidArgument(
      "filter.as_of is not available to listings: they show current versions",
      "read an earlier version's listing with a full-text search as of then",
    );
  const byId = new Map((await repository.listings(caller, request.ids, filter)).map((entry) => [entry.id, entry]));
  return request.ids.flatMap((id) => byId.get(id) ?? []);
}

/** A passage of each visible entry to rerank; items naming entries the caller cannot see are left out. */
export async function searchPassages(
  dependencies: SearchServiceDependencies,
  principal: Principal | undefined,
  request: PassagesRequest,
): Promise<PassageResult[]> {
  const { repository } = dependencies;
  const caller = requirePrincipal(principal, "context:read");
  if (request.items.length > searchLimits.passageItems)
    throw invalidArgument(
      `items must list at most ${searchLimits.passageItems} passages (got ${request.items.length})`,
    );
  const maxChars = request.maxChars === 0 ? searchLimits.passageDefaultChars : request.maxChars;
  if (maxChars < searchLimits.passageMinChars || maxChars > searchLimits.passageMaxChars) {
    throw invalidArgument(
      `max_chars must be ${searchLimits.passageMinChars} to ${searchLimits.passageMaxChars} (got ${maxChars})`,
    );
  }
  if (request.query.length > 1_000 || request.query.includes("\u0000"))
    throw invalidArgument("query must be at most 1000 characters, without NUL");
  const perItem = request.perItem ?? 0;
  if (!Number.isInteger(perItem) || perItem < 0 || perItem > searchLimits.passagesPerItemMax)
    throw invalidArgument(`per_item must be 0 to ${searchLimits.passagesPerItemMax} (got ${perItem})`);
  if (request.items.length * Math.max(perItem, 1) > searchLimits.passageItems)
    throw invalidArgument(
      `items × per_item must be at most ${searchLimits.passageItems} passages (got ${request.items.length} × ${perItem})`,
    );
  request.items.forEach((item, index) => {
    if (!isUuid(item.entryId)) throw invalidArgument(`items[${index}].entry_id must be a full entry id`);
    if (item.span !== undefined && item.span.end <= item.span.start)
      throw invalidArgument(`items[${index}].span must have end > start`);
  });
  const reach = new Map<string, number>();
  for (const item of request.items) {
    const chars = item.span === undefined ? passageScanLimit : item.span.end;
    reach.set(item.entryId, Math.max(reach.get(item.entryId) ?? 0, chars));
  }
  const texts = await repository.texts(
    caller,
    [...reach].map(([id, chars]) => ({ id, chars })),
  );
  return request.items.flatMap((item): PassageResult[] => {
    const text = texts.get(item.entryId);
    if (text === undefined) return [];
    if (perItem === 0) {
      const window = findPassage(text, request.query, maxChars, item.span);
      return [{ entryId: item.entryId, text: window.text, span: { start: window.start, end: window.end }, nodeId: "" }];
    }
    const windows = findPassages(text, request.query, maxChars, perItem, item.span);
    const nodeOf = outlineNodeFinder(text, Math.max(...windows.map((window) => window.start)) + 1);
    return windows.map((window) => ({
      entryId: item.entryId,
      text: window.text,
      span: { start: window.start, end: window.end },
      nodeId: nodeOf(window.start),
    }));
  });
}
