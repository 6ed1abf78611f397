/**
 * Search as the tools and the hybrid search ask for it: full-text and
 * semantic rankings, listings and passages over SearchService, query
 * embeddings from the embedder and passage scores from the reranker, with
 * every proto message built and read here. Requests take the tools' filter
 * arguments and mode names; replies come back as plain hits.
 */
import type { MessageInitShape } from "@bufbuild/protobuf";
import { searchV1, type storeV1 } from "@context-hub/proto";
import type { Principal } from "../principal.js";
import { toEntryListing } from "./entry-views.js";
import type { Peers } from "./peers.js";
import { toEntryFilter, type SearchFilterArgs } from "./search-filter.js";

/** How a full-text search reads its query (see fts_search_context's mode). */
export type FullTextModeName = "match" | "prefix" | "phrase" | "boolean" | "any";

const fullTextModeOf: Record<FullTextModeName, searchV1.FullTextMode> = {
  match: searchV1.FullTextMode.MATCH,
  prefix: searchV1.FullTextMode.PREFIX,
  phrase: searchV1.FullTextMode.PHRASE,
  boolean: searchV1.FullTextMode.BOOLEAN,
  any: searchV1.FullTextMode.ANY,
};

/** An entry's listing as MCP callers read it (a preview and the summary instead of the full text). */
export type EntryListing = ReturnType<typeof toEntryListing>;

/**
 * An entry a search read. Its listing view is built when asked for, so an
 * entry that is never shown (cut by a score floor, or not on the page) is
 * never converted, and a value it cannot show cannot fail the search.
 */
export interface SearchEntry {
  id: string;
  threadId: string;
  preview: string;
  /** The entry's own title; empty when it has none. */
  title: string;
  listing(): EntryListing;
}

/** A span of an entry's text, in UTF-16 code units. */
export interface TextSpan {
  start: number;
  end: number;
}

/** A fragment of an entry's text with the matching words marked. */
export interface Highlight {
  text: string;
  matches: TextSpan[];
}

/** One ranked entry: its listing unless only ids were asked for, and for semantic hits the best chunk's span. */
export interface SearchHit {
  entryId: string;
  entry: SearchEntry | undefined;
  rank: number;
  score: number;
  chunk: TextSpan | undefined;
  highlights: Highlight[];
}

/** Pseudo-relevance feedback on a full-text ranking; what is left out the store chooses. */
export interface FullTextFeedback {
  /** Entries of the first pass taken as relevant. */
  documents?: number | undefined;
  /** Words added to the query at most. */
  terms?: number | undefined;
  /** The original query's share of the expanded query. */
  queryWeight?: number | undefined;
  /** The entries taken as relevant, instead of a first pass of the store's own. */
  relevantIds?: string[] | undefined;
  relevantWeights?: number[] | undefined;
}

export interface FullTextRequest {
  query: string;
  mode: FullTextModeName;
  /** A text-search configuration to parse the query in; the store's own when left out. */
  language?: string | undefined;
  filter: SearchFilterArgs;
  limit: number;
  offset: number;
  highlight?: boolean | undefined;
  feedback?: FullTextFeedback | undefined;
  /** Rank ids and scores only, without listings. */
  idsOnly?: boolean | undefined;
  /** Rank only these entries (feedback re-scoring a bounded candidate set). */
  withinIds?: string[] | undefined;
}

/** What feedback added to a query: the entries taken as relevant and the words added, heaviest first. */
export interface FeedbackUsed {
  documents: number;
  terms: { term: string; weight: number }[];
}

export interface FullTextResult {
  hits: SearchHit[];
  hasMore: boolean;
  /** The text-search configuration the query was parsed in. */
  language: string;
  warnings: string[];
  feedback: FeedbackUsed;
}

/** A query's embedding, in the model that made it (little-endian float32). */
export interface QueryEmbedding {
  model: string;
  vector: Uint8Array;
}

export interface SemanticRequest {
  embedding: QueryEmbedding;
  filter: SearchFilterArgs;
  limit: number;
  offset: number;
  idsOnly: boolean;
}

export interface SemanticResult {
  hits: SearchHit[];
  hasMore: boolean;
  /** How the store searched the vectors (e.g. ann, exact). */
  strategy: string;
  warnings: string[];
}

/** A passage of an entry to rerank: around the given span, else around the query's words. */
export interface PassageItem {
  entryId: string;
  span?: TextSpan | undefined;
}

/** A passage as the store cut it: the entry's text in `span`, and (deep reading) the outline node it starts in. */
export interface EntryPassage {
  entryId: string;
  text: string;
  span: TextSpan;
  /** With `perItem`: the deepest outline section the passage starts in; "" before the first heading. */
  nodeId: string;
}

function toSearchEntry(entry: storeV1.Entry): SearchEntry {
  return {
    id: entry.id,
    threadId: entry.threadId,
    preview: entry.preview,
    title: entry.title,
    listing: () => toEntryListing(entry),
  };
}

function toSearchHit(hit: searchV1.SearchHit): SearchHit {
  return {
    entryId: hit.entryId,
    entry: hit.entry === undefined ? undefined : toSearchEntry(hit.entry),
    rank: hit.rank,
    score: hit.score,
    chunk: hit.chunk === undefined ? undefined : { start: hit.chunk.start, end: hit.chunk.end },
    highlights: hit.highlights.map((highlight) => ({
      text: highlight.text,
      matches: highlight.matches.map((match) => ({ start: match.start, end: match.end })),
    })),
  };
}

function toProtoFeedback(
  feedback: FullTextFeedback,
): MessageInitShape<typeof searchV1.FullTextSearchRequestSchema>["feedback"] {
  return {
    documents: feedback.documents ?? 0,
    terms: feedback.terms ?? 0,
    ...(feedback.queryWeight === undefined ? {} : { queryWeight: feedback.queryWeight }),
    relevantIds: feedback.relevantIds ?? [],
    relevantWeights: feedback.relevantWeights ?? [],
  };
}

/** The store's two rankings: full text and semantic. */
function rankings(search: Peers["search"]) {
  return {
    /** One page of the full-text ranking of the entries matching the filter arguments. */
    async fullText(principal: Principal, request: FullTextRequest): Promise<FullTextResult> {
      const reply = await search.fullTextSearch({
        principal,
        query: request.query,
        mode: fullTextModeOf[request.mode],
        language: request.language ?? "",
        filter: toEntryFilter(request.filter),
        limit: request.limit,
        offset: request.offset,
        highlight: request.highlight ?? false,
        idsOnly: request.idsOnly ?? false,
        withinIds: request.withinIds ?? [],
        ...(request.feedback === undefined ? {} : { feedback: toProtoFeedback(request.feedback) }),
      });
      return {
        hits: reply.hits.map(toSearchHit),
        hasMore: reply.hasMore,
        language: reply.language,
        warnings: reply.warnings,
        feedback: {
          documents: reply.feedbackDocuments,
          terms: reply.expansionTerms.map((term) => ({ term: term.term, weight: term.weight })),
        },
      };
    },

    /** One page of the entries matching the filter arguments, ranked by their best chunk's similarity to the embedding. */
    async semantic(principal: Principal, request: SemanticRequest): Promise<SemanticResult> {
      const reply = await search.semanticSearch({
        principal,
        embeddingModel: request.embedding.model,
        vector: request.embedding.vector,
        filter: toEntryFilter(request.filter),
        limit: request.limit,
        offset: request.offset,
        idsOnly: request.idsOnly,
      });
      return {
        hits: reply.hits.map(toSearchHit),
        hasMore: reply.hasMore,
        strategy: reply.strategy,
        warnings: reply.warnings,
      };
    },
  };
}

/** What the store gives to show and rerank a ranking's entries: their listings and passages. */
function entryReads(search: Peers["search"]) {
  return {
    /** The listings of `ids` the caller can still see under the filter arguments; the others are left out. */
    async listings(principal: Principal, ids: string[], filter: SearchFilterArgs): Promise<SearchEntry[]> {
      const reply = await search.getListings({ principal, ids, filter: toEntryFilter(filter) });
      return reply.entries.map(toSearchEntry);
    },

    /**
     * A passage of each item, at most `maxChars` long, for the reranker to score against the query; with
     * `perItem`, up to that many per item that do not overlap, best first, each with its outline node.
     */
    async passages(
      principal: Principal,
      request: { query: string; items: PassageItem[]; maxChars: number; perItem?: number | undefined },
    ): Promise<EntryPassage[]> {
      const reply = await search.getPassages({
        principal,
        query: request.query,
        items: request.items.map((item) => ({
          entryId: item.entryId,
          ...(item.span === undefined ? {} : { span: { start: item.span.start, end: item.span.end } }),
        })),
        maxChars: request.maxChars,
        perItem: request.perItem ?? 0,
      });
      return reply.passages.map((passage) => ({
        entryId: passage.entryId,
        text: passage.text,
        span: { start: passage.span?.start ?? 0, end: passage.span?.end ?? 0 },
        nodeId: passage.nodeId,
      }));
    },
  };
}

/** The models a search calls: the embedder for the query's vector, the reranker for passages' scores. */
function modelCalls({ embedder, reranker }: Pick<Peers, "embedder" | "reranker">) {
  return {
    /** The query's embedding, waiting at most `deadlineMs` for the embedder. */
    async embedQuery(query: string, deadlineMs: number): Promise<QueryEmbedding> {
      const reply = await embedder.embedQueries({ texts: [query] }, { deadlineMs });
      return { model: reply.model, vector: reply.vectors[0]?.float32Le ?? new Uint8Array() };
    },

    /** The passages' scores against the query, best first, waiting at most `deadlineMs` for the reranker. */
    async rerank(
      query: string,
      passages: { id: string; text: string }[],
      deadlineMs: number,
    ): Promise<{ id: string; score: number }[]> {
      const reply = await reranker.rerank({ query, passages, topN: 0 }, { deadlineMs });
      return reply.results.map((result) => ({ id: result.id, score: result.score }));
    },
  };
}

/** The search client over the store's SearchService, the embedder and the reranker. */
export function createSearchClient(peers: Pick<Peers, "search" | "embedder" | "reranker">) {
  return { ...rankings(peers.search), ...entryReads(peers.search), ...modelCalls(peers) };
}

export type SearchClient = ReturnType<typeof createSearchClient>;
