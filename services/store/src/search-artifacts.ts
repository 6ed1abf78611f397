/**
 * The search service whose hits and listings show the artifacts each entry
 * links, as list_context and a by-id read do: the search domain reads the
 * listings, and the artifacts of each page are added here in one statement
 * (entries/listed-artifacts.ts), under the access predicate and as of the
 * filter's `as_of`. An outline (navigate) comes from a by-id read, which has
 * them already; a ranking of ids only has no listings to add them to.
 */
import type { SqlExecutor } from "./db/sql-database.js";
import { withLinkedArtifacts } from "./entries/listed-artifacts.js";
import type { StoredEntry } from "./model/entry-model.js";
import type { Principal } from "./model/principal.js";
import type { SearchFilterInput } from "./model/search-filter.js";
import type { SearchHitResult, SearchService } from "./search/search-model.js";

async function hitsWithArtifacts(
  executor: SqlExecutor,
  principal: Principal | undefined,
  hits: SearchHitResult[],
  filter: SearchFilterInput | undefined,
): Promise<SearchHitResult[]> {
  const listed = hits.flatMap((hit) => (hit.entry === undefined ? [] : [hit.entry]));
  // No principal: the search refused the call before it got here.
  if (principal === undefined || listed.length === 0) return hits;
  const entries = new Map(
    (await withLinkedArtifacts(executor, principal, listed, { asOf: filter?.asOf })).map((entry) => [entry.id, entry]),
  );
  return hits.map((hit) => (hit.entry === undefined ? hit : { ...hit, entry: entries.get(hit.entry.id) ?? hit.entry }));
}

/** `search` with the artifacts linked by the entries of its full-text and semantic hits and of its listings. */
export function withSearchArtifacts(search: SearchService, executor: SqlExecutor): SearchService {
  return {
    ...search,
    async fullText(principal, request) {
      const result = await search.fullText(principal, request);
      return { ...result, hits: await hitsWithArtifacts(executor, principal, result.hits, request.filter) };
    },
    async semantic(principal, request) {
      const result = await search.semantic(principal, request);
      return { ...result, hits: await hitsWithArtifacts(executor, principal, result.hits, request.filter) };
    },
    async listings(principal, request) {
      const entries: StoredEntry[] = await search.listings(principal, request);
      if (principal === undefined || entries.length === 0) return entries;
      return withLinkedArtifacts(executor, principal, entries, { asOf: request.filter?.asOf });
    },
  };
}
