import { ContextHubError, isContextHubError } from "@context-hub/common";
import { defaultRrfK } from "../../search/rrf.js";
import { defaultFtsFeedback } from "../../search/hybrid-feedback.js";
import { defaultFusionMethod, defaultLegWeights } from "../../search/hybrid-fusion.js";
import { asOfSemanticWarning, runHybridSearch, type HybridSearchRequest } from "../../search/hybrid-search.js";
import { roundMs, searchDeadlines, semanticRanking, timed, type StageTimes } from "../../search/search-legs.js";
import type { z } from "zod";
import type { FullTextResult } from "../../clients/search-client.js";
import type { SearchFilterArgs } from "../../clients/search-filter.js";
import { passagesOfEntries } from "../../search/entry-passages.js";
import {
  applyScoreFloor,
  noScores,
  toSearchResult,
  type HitExplain,
  type SearchExplain,
} from "../../search/search-views.js";
import { searchToolLimits } from "../search-filter-schemas.js";
import { ftsSearchInput, hybridSearchInput, semanticSearchInput } from "../search-input-schemas.js";
import { ftsSearchOutput, hybridSearchOutput, semanticSearchOutput } from "../search-output-schemas.js";
import { defineTool, readOnlyTool } from "../tool-definition.js";

/** What every search tool says about the filters they share. */
export const sharedFilterNote =
  "Quarantined and rejected entries are left out unless include_quarantined is set (each result carries its trust_state); valid_at keeps entries whose stated validity holds at an instant; as_of searches what the store held at an instant.";

/** explain_query's reply-level object for a single-leg search. */
const singleLegExplain = (
  rankedBy: string,
  ftsMode: string | null,
  times: StageTimes,
  started: number,
): SearchExplain => ({
  ranked_by: rankedBy,
  fusion_method: null,
  rrf_k: null,
  weights: null,
  fts_mode: ftsMode,
  stages_ms: { ...times, total: roundMs(performance.now() - started) },
});

const ftsExplain = (hit: { rank: number; score: number }): HitExplain => ({
  fts: { rank: hit.rank, score: hit.score, contribution: null },
  semantic: null,
  fused: null,
  rerank: null,
});
const semanticExplain = (hit: { rank: number; score: number }): HitExplain => ({
  fts: null,
  semantic: { rank: hit.rank, score: hit.score, contribution: null },
  fused: null,
  rerank: null,
});

const page = (args: { limit?: number | undefined; offset?: number | undefined }) => ({
  limit: args.limit ?? searchToolLimits.defaultPageSize,
  offset: args.offset ?? 0,
});

/**
 * A full-text reply's hits as tool results, cut by `min_score`, each scored
 * by its full-text leg, with its highlights when `highlight` and its explain
 * when asked.
 */
function fullTextResults(
  reply: FullTextResult,
  args: { min_score?: number | undefined; explain_query?: boolean | undefined },
  highlight: boolean,
) {
  const floored = applyScoreFloor(reply.hits, reply.hasMore, args.min_score);
  const results = floored.hits.flatMap((hit) =>
    hit.entry === undefined
      ? []
      : [
          toSearchResult(
            hit.entry,
            { rank: hit.rank, score: hit.score },
            { ...noScores, fts: { rank: hit.rank, score: hit.score } },
            {
              ...(highlight ? { highlights: hit.highlights } : {}),
              ...(args.explain_query === true ? { explain: ftsExplain(hit) } : {}),
            },
          ),
        ],
  );
  return { results, floored };
}

export const ftsSearchContextTool = defineTool({
  name: "fts_search_context",
  title: "Full-text search",
  description: [
    "Find entries containing words, ranked by the store's full-text rank (PostgreSQL full text, stemmed: 'indexing' finds 'indexed').",
    "Use it for exact terms, names, identifiers and phrases; use semantic_search_context for meaning, hybrid_search_context when unsure.",
    'Modes: match (every word, default), prefix, phrase, boolean ("quoted", OR, -word), any (at least one word).',
    "Results carry a preview, the summary, scores and trust_state; read the full text with get_context_by_ids or read_context_range.",
    "min_score leaves out weak results; explain_query shows how each was ranked and where the time went.",
    sharedFilterNote,
  ].join(" "),
  inputSchema: ftsSearchInput,
  outputSchema: ftsSearchOutput,
  annotations: readOnlyTool,
  scope: "context:read",
  async handler(args, { principal, clients }) {
    const { limit, offset } = page(args);
    const mode = args.mode ?? "match";
    const started = performance.now();
    const times: StageTimes = {};
    // The histogram keeps its "store" leg for this tool; explain_query calls the stage fts, as hybrid does.
    const reply = await timed(
      "fts",
      "store",
      () =>
        clients.search.fullText(principal, {
          query: args.query,
          mode,
          language: args.language,
          filter: args,
          limit,
          offset,
          highlight: args.highlight,
          ...(args.feedback === true
            ? {
                feedback: {
                  documents: args.feedback_documents ?? 0,
                  terms: args.feedback_terms ?? 0,
                  ...(args.feedback_query_weight === undefined ? {} : { queryWeight: args.feedback_query_weight }),
                },
              }
            : {}),
        }),
      times,
    );
    const { results, floored } = fullTextResults(reply, args, args.highlight === true);
    return {
      results,
      count: results.length,
      limit,
      offset,
      has_more: floored.hasMore,
      max_depth: searchToolLimits.maxRankingDepth,
      warnings: reply.warnings,
      dropped_below_min_score: floored.dropped,
      ...(args.explain_query === true
        ? {
            explain: {
              ...singleLegExplain("fts", mode, { fts: times.store ?? 0 }, started),
              fts_feedback: args.feedback === true ? reply.feedback : null,
            },
          }
        : {}),
      mode,
      language: reply.language,
    };
  },
});

export const semanticSearchContextTool = defineTool({
  name: "semantic_search_context",
  title: "Semantic search",
  description: [
    "Find entries by meaning: the query is embedded and compared with every chunk of the entries you can see; each entry is ranked by its best chunk (best_chunk gives its offsets).",
    "Use it when the words may differ from what was stored. Scores are cosine similarities (1 is identical); min_score leaves out weaker ones.",
    "Read the matching part with read_context_range (start/end = best_chunk).",
    sharedFilterNote,
    "With as_of it answers from full text (vectors of earlier versions are not kept) and warns.",
  ].join(" "),
  inputSchema: semanticSearchInput,
  outputSchema: semanticSearchOutput,
  annotations: readOnlyTool,
  scope: "context:read",
  async handler(args, { principal, clients }) {
    const { limit, offset } = page(args);
    const started = performance.now();
    const times: StageTimes = {};
    if (args.as_of !== undefined) {
      // Vectors of earlier versions are not kept: full text over the versions current then answers instead, and says so.
      const reply = await timed(
        "semantic",
        "fts",
        () => clients.search.fullText(principal, { query: args.query, mode: "any", filter: args, limit, offset }),
        times,
      );
      const { results, floored } = fullTextResults(reply, args, false);
      return {
        results,
        count: results.length,
        limit,
        offset,
        has_more: floored.hasMore,
        max_depth: searchToolLimits.maxRankingDepth,
        warnings: [asOfSemanticWarning, ...reply.warnings],
        dropped_below_min_score: floored.dropped,
        ...(args.explain_query === true ? { explain: singleLegExplain("fts", "any", times, started) } : {}),
        embedding_model: "",
        strategy: "full_text",
      };
    }
    let ranking: Awaited<ReturnType<typeof semanticRanking>>;
    try {
      ranking = await semanticRanking(
        clients.search,
        principal,
        args.query,
        args,
        { limit, offset },
        "semantic",
        times,
      );
    } catch (error) {
      if (isContextHubError(error) && error.code === "EMBEDDER_UNAVAILABLE") {
        throw new ContextHubError(
          "EMBEDDER_UNAVAILABLE",
          `semantic search needs the embedder, which is unavailable: ${error.message}`,
          {
            remedy:
              "retry shortly, or use fts_search_context (or hybrid_search_context, which falls back to full text)",
          },
        );
      }
      throw error;
    }
    const { reply, model } = ranking;
    const floored = applyScoreFloor(reply.hits, reply.hasMore, args.min_score);
    const results = floored.hits.flatMap((hit) =>
      hit.entry === undefined
        ? []
        : [
            toSearchResult(
              hit.entry,
              { rank: hit.rank, score: hit.score },
              { ...noScores, semantic: { rank: hit.rank, score: hit.score } },
              { chunk: hit.chunk, ...(args.explain_query === true ? { explain: semanticExplain(hit) } : {}) },
            ),
          ],
    );
    return {
      results,
      count: results.length,
      limit,
      offset,
      has_more: floored.hasMore,
      max_depth: searchToolLimits.maxRankingDepth,
      warnings: reply.warnings,
      dropped_below_min_score: floored.dropped,
      ...(args.explain_query === true ? { explain: singleLegExplain("semantic", null, times, started) } : {}),
      embedding_model: model,
      strategy: reply.strategy,
    };
  },
});

/** The hybrid arguments a tool may take; every one but the query is optional. */
type HybridArgs = Pick<
  z.infer<typeof hybridSearchInput>,
  | "query"
  | "fts_mode"
  | "fts_feedback"
  | "fusion_method"
  | "rrf_k"
  | "fts_weight"
  | "semantic_weight"
  | "min_score"
  | "rerank"
  | "rerank_weight"
  | "candidates"
  | "rerank_depth"
> &
  SearchFilterArgs;

/**
 * A hybrid search request from a tool's arguments, with the defaults for
 * every one left out: the one place hybrid_search_context, deep_search and
 * find_items take them from.
 */
export function hybridRequestOf(args: HybridArgs, limit: number, offset: number): HybridSearchRequest {
  // auto keeps its name for callers that send it; the leg runs once, over any of the words.
  const ftsMode = args.fts_mode === undefined || args.fts_mode === "auto" ? "any" : args.fts_mode;
  return {
    query: args.query,
    filter: args,
    limit,
    offset,
    ftsMode,
    // Feedback cannot expand a prefix query (its terms stand for every word they start): the default leaves it off there.
    ftsFeedback: args.fts_feedback ?? (defaultFtsFeedback && ftsMode !== "prefix"),
    fusion: args.fusion_method ?? defaultFusionMethod,
    rrfK: args.rrf_k ?? defaultRrfK,
    weights: {
      fts: args.fts_weight ?? defaultLegWeights.fts,
      semantic: args.semantic_weight ?? defaultLegWeights.semantic,
    },
    minScore: args.min_score,
    rerank: args.rerank ?? true,
    rerankWeight: args.rerank_weight,
    candidates: args.candidates ?? searchToolLimits.defaultCandidates,
    rerankDepth: args.rerank_depth ?? searchToolLimits.defaultRerankDepth,
    maxDepth: searchToolLimits.maxRankingDepth,
  };
}

export const hybridSearchContextTool = defineTool({
  name: "hybrid_search_context",
  title: "Hybrid search",
  description: [
    "The best general search: full-text (any of the words) and semantic search run together, their scores are fused, and the best results are reranked over the passage that matched.",
    "Use it to find what is already known across threads before starting work. If one leg is unavailable the other answers and warnings say so.",
    "Each result shows every leg's rank and score; explain_query adds each leg's share of the fused score and each stage's time, and min_score leaves out weak results. Read full text with get_context_by_ids or read_context_range.",
    sharedFilterNote,
    "With as_of only the full-text leg answers (no reranking) and a warning says so.",
  ].join(" "),
  inputSchema: hybridSearchInput,
  outputSchema: hybridSearchOutput,
  annotations: readOnlyTool,
  scope: "context:read",
  async handler(args, { principal, clients }) {
    const { limit, offset } = page(args);
    const started = performance.now();
    const request = hybridRequestOf(args, limit, offset);
    const { ftsMode, fusion, rrfK, weights } = request;
    const result = await timed("hybrid", "total", () => runHybridSearch(clients.search, principal, request));
    const passages =
      args.passages_per_entry === undefined
        ? undefined
        : await passagesOfEntries(
            clients.search,
            principal,
            {
              query: args.query,
              entryIds: result.hits.map((hit) => hit.entry.id),
              perEntry: args.passages_per_entry,
              rerankDeadlineMs: searchDeadlines.rerankMs,
            },
            result.times,
            result.warnings,
          );
    const explain = args.explain_query === true;
    const results = result.hits.map((hit) =>
      toSearchResult(hit.entry, { rank: hit.rank, score: hit.score }, hit.scores, {
        chunk: hit.chunk,
        ...(passages === undefined ? {} : { passages: passages.get(hit.entry.id) ?? [] }),
        ...(explain
          ? {
              explain: {
                fts: hit.scores.fts === null ? null : { ...hit.scores.fts, contribution: hit.contributions.fts },
                semantic:
                  hit.scores.semantic === null
                    ? null
                    : { ...hit.scores.semantic, contribution: hit.contributions.semantic },
                fused: hit.scores.fused,
                rerank: hit.scores.rerank,
              },
            }
          : {}),
      }),
    );
    return {
      results,
      count: results.length,
      limit,
      offset,
      has_more: result.hasMore,
      max_depth: searchToolLimits.maxRankingDepth,
      warnings: result.warnings,
      dropped_below_min_score: result.droppedBelowMinScore,
      ...(explain
        ? {
            explain: {
              ranked_by: result.floorOn,
              fusion_method: fusion,
              rrf_k: fusion === "rrf" ? rrfK : null,
              weights,
              fts_mode: ftsMode,
              fts_feedback: result.ftsFeedback,
              stages_ms: { ...result.times, total: roundMs(performance.now() - started) },
            },
          }
        : {}),
      legs: result.legs,
    };
  },
});
