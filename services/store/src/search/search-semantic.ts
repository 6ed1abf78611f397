/** Semantic search: the query vector checked, the nearest entries from the vector index, re-checked against the access predicate and filter. */
import { invalidArgument } from "@context-hub/common";
import type { StoredEntry } from "../model/entry-model.js";
import { requirePrincipal, type Principal } from "../model/principal.js";
import { validateSearchFilter } from "../model/search-filter.js";
import type { SearchServiceDependencies, SemanticRequest, SemanticResult } from "./search-model.js";
import { validateSearchPage, validateVector } from "./search-validation.js";

/** The visible, filtered entries whose best chunk is nearest to a query vector. */
export async function searchSemantic(
  dependencies: SearchServiceDependencies,
  principal: Principal | undefined,
  request: SemanticRequest,
): Promise<SemanticResult> {
  const { repository, vectors } = dependencies;
  const caller = requirePrincipal(principal, "context:read");
  validateVector(request.model, request.vector);
  const filter = validateSearchFilter(request.filter);
  if (filter.asOf !== undefined) {
    throw invalidArgument(
      "filter.as_of is not available to semantic search: vectors are kept for the current version of each entry only",
      "search what the store held then with full text (fts_search_context, or hybrid_search_context, which answers from its full-text leg)",
    );
  }
  const page = validateSearchPage(request.limit, request.offset);
  const found = await vectors.nearestEntries(caller, {
    model: request.model,
    vector: request.vector,
    filter,
    limit: page.offset + page.limit + 1,
  });
  const window = found.hits.slice(page.offset, page.offset + page.limit);
  // The listing read applies the predicate and the filter again (a vector index's payload filter is re-checked here); an entry deleted since the scan drops out.
  // With ids only, the same check runs without reading the listings.
  const ids = window.map((hit) => hit.entryId);
  const listed =
    request.idsOnly === true
      ? new Map([...(await repository.visibleIds(caller, ids, filter))].map((id) => [id, undefined]))
      : new Map(
          (await repository.listings(caller, ids, filter)).map((entry) => [entry.id, entry as StoredEntry | undefined]),
        );
  const hits = window.flatMap((hit, index) => {
    if (!listed.has(hit.entryId)) return [];
    const similarity = Number.isNaN(hit.distance) ? 0 : 1 - hit.distance;
    return [
      {
        entryId: hit.entryId,
        entry: listed.get(hit.entryId),
        score: similarity,
        rank: page.offset + index + 1,
        chunk: hit.chunk,
        highlights: [],
      },
    ];
  });
  const warnings = [...found.warnings];
  if (
    found.hits.length === 0 &&
    (await repository.embeddedByOtherModels(caller, request.model, request.vector.length))
  ) {
    warnings.push(
      `no stored vectors you can search were made by ${request.model} (${request.vector.length} dimensions), so nothing can match; if the embedding model changed, an operator must re-embed the store`,
    );
  }
  return { hits, hasMore: found.hits.length > page.offset + page.limit, strategy: found.strategy, warnings };
}
