/**
 * The search domain: full-text and vector rankings, passages for reranking,
 * outline navigation, range reads and grep, each over exactly the entries a
 * caller may see (the repositories compose the access predicate into every
 * query before its limit). The service joins one module per concern: its
 * model and limits (search-model.ts), the checks (search-validation.ts), full
 * text, semantic, listings and passages, navigation and ranges, grep. No
 * transport or SQL. Documented in docs/retrieval.md.
 */
import { searchFullText } from "./search-full-text.js";
import { grepEntries } from "./search-grep.js";
import type { SearchService, SearchServiceDependencies } from "./search-model.js";
import { navigateEntry, readEntryRange } from "./search-navigation.js";
import { searchListings, searchPassages } from "./search-passages.js";
import { searchSemantic } from "./search-semantic.js";

/** The search service over its repositories. */
export function createSearchService(dependencies: SearchServiceDependencies): SearchService {
  return {
    fullText: (principal, request) => searchFullText(dependencies, principal, request),
    semantic: (principal, request) => searchSemantic(dependencies, principal, request),
    listings: (principal, request) => searchListings(dependencies, principal, request),
    passages: (principal, request) => searchPassages(dependencies, principal, request),
    navigate: (principal, request) => navigateEntry(dependencies, principal, request),
    readRange: (principal, request) => readEntryRange(dependencies, principal, request),
    grep: (principal, request, signal) => grepEntries(dependencies, principal, request, signal),
  };
}
