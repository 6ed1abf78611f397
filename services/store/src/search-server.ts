// The store's gRPC transport for retrieval: SearchService handlers translating proto messages to search domain calls and back.
import { vectorFromBytes, type ServiceImplementation } from "@context-hub/common";
import type { searchV1 } from "@context-hub/proto";
import { toEntryMessage, toPrincipal } from "./messages.js";
import type { SearchService } from "./search/search-model.js";
import {
  toFullTextMode,
  toGrepOutput,
  toOutlineMove,
  toGrepResponse,
  toRangeRequest,
  toReadRangeResponse,
  toSearchHitMessage,
} from "./search-messages.js";
import { toEntryFilter } from "./messages.js";

/** The SearchService's handlers, by method. */
type SearchHandlers = ServiceImplementation<typeof searchV1.SearchService>;

/** The handlers that rank or list entries: full-text and semantic search, and listings by id. */
function rankingHandlers(
  search: SearchService,
): Pick<SearchHandlers, "fullTextSearch" | "semanticSearch" | "getListings"> {
  return {
    async fullTextSearch(request) {
      const result = await search.fullText(toPrincipal(request.principal), {
        query: request.query,
        mode: toFullTextMode(request.mode),
        language: request.language,
        filter: toEntryFilter(request.filter),
        limit: request.limit,
        offset: request.offset,
        highlight: request.highlight,
        feedback:
          request.feedback === undefined
            ? undefined
            : {
                documents: request.feedback.documents,
                terms: request.feedback.terms,
                queryWeight: request.feedback.queryWeight,
                relevantIds: request.feedback.relevantIds,
                relevantWeights: request.feedback.relevantWeights,
              },
        idsOnly: request.idsOnly,
        withinIds: request.withinIds,
      });
      return {
        hits: result.hits.map(toSearchHitMessage),
        hasMore: result.hasMore,
        language: result.language,
        warnings: result.warnings,
        expansionTerms: (result.feedback?.terms ?? []).map((term) => ({ term: term.lexeme, weight: term.weight })),
        feedbackDocuments: result.feedback?.documents ?? 0,
      };
    },

    async semanticSearch(request) {
      const result = await search.semantic(toPrincipal(request.principal), {
        model: request.embeddingModel,
        vector: vectorFromBytes(request.vector, "vector"),
        filter: toEntryFilter(request.filter),
        limit: request.limit,
        offset: request.offset,
        idsOnly: request.idsOnly,
      });
      return {
        hits: result.hits.map(toSearchHitMessage),
        hasMore: result.hasMore,
        strategy: result.strategy,
        warnings: result.warnings,
      };
    },

    async getListings(request) {
      const entries = await search.listings(toPrincipal(request.principal), {
        ids: request.ids,
        filter: toEntryFilter(request.filter),
      });
      return { entries: entries.map(toEntryMessage) };
    },
  };
}

/** The handlers that read inside entries: passages, outline navigation, ranges and grep. */
function readingHandlers(
  search: SearchService,
): Pick<SearchHandlers, "getPassages" | "navigateEntry" | "readRange" | "grep"> {
  return {
    async getPassages(request) {
      const passages = await search.passages(toPrincipal(request.principal), {
        query: request.query,
        items: request.items.map((item) => ({
          entryId: item.entryId,
          span: item.span === undefined ? undefined : { start: item.span.start, end: item.span.end },
        })),
        maxChars: request.maxChars,
        perItem: request.perItem,
      });
      return { passages };
    },

    async navigateEntry(request) {
      const result = await search.navigate(toPrincipal(request.principal), {
        id: request.id,
        maxDepth: request.maxDepth,
        includeQuarantined: request.includeQuarantined,
        offset: request.offset,
        maxNodes: request.maxNodes,
        nodeId: request.nodeId,
        move: toOutlineMove(request.move),
      });
      return {
        entry: toEntryMessage(result.entry),
        nodes: result.nodes,
        lineCount: result.lineCount,
        totalNodes: result.totalNodes,
        nextOffset: result.nextOffset,
        note: result.note,
      };
    },

    async readRange(request) {
      const result = await search.readRange(toPrincipal(request.principal), {
        id: request.id,
        range: toRangeRequest(request.range),
        maxChars: request.maxChars,
        includeQuarantined: request.includeQuarantined,
      });
      return toReadRangeResponse(result);
    },

    async grep(request, context) {
      const result = await search.grep(
        toPrincipal(request.principal),
        {
          pattern: request.pattern,
          regex: request.regex,
          caseInsensitive: request.caseInsensitive,
          filter: toEntryFilter(request.filter),
          mode: toGrepOutput(request.output),
          contextLines: request.contextLines,
          maxMatches: request.maxMatches,
          maxMatchesPerEntry: request.maxMatchesPerEntry,
          maxEntries: request.maxEntries,
        },
        context.signal,
      );
      return toGrepResponse(result);
    },
  };
}

/** The SearchService implementation over the search domain. */
export function createSearchHandlers(search: SearchService): SearchHandlers {
  return { ...rankingHandlers(search), ...readingHandlers(search) };
}
