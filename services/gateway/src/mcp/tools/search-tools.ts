import { ContextHubError, isContextHubError } from "@context-hub/common";
import { defaultRrfK } from "../../search/rrf.js";
import { searchV1 } from "@context-hub/proto";
import { asOfSemanticWarning, runHybridSearch, semanticRanking, timed, toProtoFullTextMode } from "../../search/hybrid-search.js";
import { toEntryFilter } from "../../search/search-filter.js";
import { noScores, toSearchResult } from "../../search/search-views.js";
import { ftsSearchInput, ftsSearchOutput, hybridSearchInput, hybridSearchOutput, searchToolLimits, semanticSearchInput, semanticSearchOutput } from "../search-schemas.js";
import { defineTool, readOnlyTool } from "../tool-definition.js";

/** What every search tool says about the filters they share. */
const sharedFilterNote =
  "Quarantined and rejected entries are left out unless include_quarantined is set (each result carries its trust_state); valid_at keeps entries whose stated validity holds at an instant; as_of searches what the store held at an instant.";

const page = (args: { limit?: number | undefined; offset?: number | undefined }) => ({ limit: args.limit ?? searchToolLimits.defaultPageSize, offset: args.offset ?? 0 });

export const ftsSearchContextTool = defineTool({
  name: "fts_search_context",
  title: "Full-text search",
  description: [
    "Find entries containing words, ranked by how closely together the words occur (PostgreSQL full text, stemmed: 'indexing' finds 'indexed').",
    "Use it for exact terms, names, identifiers and phrases; use semantic_search_context for meaning, hybrid_search_context when unsure.",
    'Modes: match (every word, default), prefix, phrase, boolean ("quoted", OR, -word), any (at least one word).',
    "Results carry a preview, the summary, scores and trust_state; read the full text with get_context_by_ids or read_context_range.",
    sharedFilterNote,
  ].join(" "),
  inputSchema: ftsSearchInput,
  outputSchema: ftsSearchOutput,
  annotations: readOnlyTool,
  scope: "context:read",
  async handler(args, { principal, peers }) {
    const { limit, offset } = page(args);
    const mode = args.mode ?? "match";
    const reply = await timed("fts", "store", () =>
      peers.search.fullTextSearch({
        principal,
        query: args.query,
        mode: toProtoFullTextMode(mode),
        language: args.language ?? "",
        filter: toEntryFilter(args),
        limit,
        offset,
        highlight: args.highlight ?? false,
      }),
    );
    const results = reply.hits.flatMap((hit) =>
      hit.entry === undefined
        ? []
        : [toSearchResult(hit.entry, { rank: hit.rank, score: hit.score }, { ...noScores, fts: { rank: hit.rank, score: hit.score } }, args.highlight === true ? { highlights: hit.highlights } : {})],
    );
    return { results, count: results.length, limit, offset, has_more: reply.hasMore, max_depth: searchToolLimits.maxRankingDepth, warnings: reply.warnings, mode, language: reply.language };
  },
});

export const semanticSearchContextTool = defineTool({
  name: "semantic_search_context",
  title: "Semantic search",
  description: [
    "Find entries by meaning: the query is embedded and compared with every chunk of the entries you can see; each entry is ranked by its best chunk (best_chunk gives its offsets).",
    "Use it when the words may differ from what was stored. Scores are cosine similarities (1 is identical).",
    "Read the matching part with read_context_range (start/end = best_chunk).",
    sharedFilterNote,
    "With as_of it answers from full text (vectors of earlier versions are not kept) and warns.",
  ].join(" "),
  inputSchema: semanticSearchInput,
  outputSchema: semanticSearchOutput,
  annotations: readOnlyTool,
  scope: "context:read",
  async handler(args, { principal, peers }) {
    const { limit, offset } = page(args);
    if (args.as_of !== undefined) {
      // Vectors of earlier versions are not kept: full text over the versions current then answers instead, and says so.
      const reply = await timed("semantic", "fts", () => peers.search.fullTextSearch({ principal, query: args.query, mode: searchV1.FullTextMode.ANY, filter: toEntryFilter(args), limit, offset }));
      const results = reply.hits.flatMap((hit) =>
        hit.entry === undefined ? [] : [toSearchResult(hit.entry, { rank: hit.rank, score: hit.score }, { ...noScores, fts: { rank: hit.rank, score: hit.score } })],
      );
      return {
        results,
        count: results.length,
        limit,
        offset,
        has_more: reply.hasMore,
        max_depth: searchToolLimits.maxRankingDepth,
        warnings: [asOfSemanticWarning, ...reply.warnings],
        embedding_model: "",
        strategy: "full_text",
      };
    }
    let ranking: Awaited<ReturnType<typeof semanticRanking>>;
    try {
      ranking = await semanticRanking(peers, principal, args.query, toEntryFilter(args), { limit, offset }, "semantic");
    } catch (error) {
      if (isContextHubError(error) && error.code === "EMBEDDER_UNAVAILABLE") {
        throw new ContextHubError("EMBEDDER_UNAVAILABLE", `semantic search needs the embedder, which is unavailable: ${error.message}`, {
          remedy: "retry shortly, or use fts_search_context (or hybrid_search_context, which falls back to full text)",
        });
      }
      throw error;
    }
    const { reply, model } = ranking;
    const results = reply.hits.flatMap((hit) =>
      hit.entry === undefined ? [] : [toSearchResult(hit.entry, { rank: hit.rank, score: hit.score }, { ...noScores, semantic: { rank: hit.rank, score: hit.score } }, { chunk: hit.chunk })],
    );
    return {
      results,
      count: results.length,
      limit,
      offset,
      has_more: reply.hasMore,
      max_depth: searchToolLimits.maxRankingDepth,
      warnings: reply.warnings,
      embedding_model: model,
      strategy: reply.strategy,
    };
  },
});

export const hybridSearchContextTool = defineTool({
  name: "hybrid_search_context",
  title: "Hybrid search",
  description: [
    "The best general search: full-text and semantic search run together, their rankings are fused (reciprocal rank fusion), and the best results are reranked over the passage that matched.",
    "Use it to find what is already known across threads before starting work. If one leg is unavailable the other answers and warnings say so.",
    "Each result shows every leg's rank and score. Read full text with get_context_by_ids or read_context_range.",
    sharedFilterNote,
    "With as_of only the full-text leg answers (no reranking) and a warning says so.",
  ].join(" "),
  inputSchema: hybridSearchInput,
  outputSchema: hybridSearchOutput,
  annotations: readOnlyTool,
  scope: "context:read",
  async handler(args, { principal, peers }) {
    const { limit, offset } = page(args);
    const result = await timed("hybrid", "total", () =>
      runHybridSearch(peers, principal, {
        query: args.query,
        filter: toEntryFilter(args),
        limit,
        offset,
        ftsMode: args.fts_mode === undefined || args.fts_mode === "auto" ? "auto" : toProtoFullTextMode(args.fts_mode),
        rrfK: args.rrf_k ?? defaultRrfK,
        weights: { fts: args.fts_weight ?? 1, semantic: args.semantic_weight ?? 1 },
        rerank: args.rerank ?? true,
        candidates: args.candidates ?? searchToolLimits.defaultCandidates,
        rerankDepth: args.rerank_depth ?? searchToolLimits.defaultRerankDepth,
        maxDepth: searchToolLimits.maxRankingDepth,
      }),
    );
    const results = result.hits.map((hit) => toSearchResult(hit.entry, { rank: hit.rank, score: hit.score }, hit.scores, { chunk: hit.chunk }));
    return { results, count: results.length, limit, offset, has_more: result.hasMore, max_depth: searchToolLimits.maxRankingDepth, warnings: result.warnings, legs: result.legs };
  },
});
