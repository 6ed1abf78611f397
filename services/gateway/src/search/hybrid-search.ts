/**
 * Hybrid search: the full-text and semantic legs run in parallel with the
 * same filters, each over-fetched; their rankings are fused (reciprocal rank
 * or rescaled scores); the best fused results are reranked over a passage of
 * each (the entry's best chunk, or a window around the query's words). A leg
 * that fails (the embedder down, the reranker down) degrades the result with
 * a warning instead of failing it; only when both retrieval legs fail does
 * the search fail.
 */
import type { SearchFilterArgs } from "../clients/search-filter.js";
import type { FeedbackUsed, FullTextModeName, SearchClient, SearchEntry, TextSpan } from "../clients/search-client.js";
import type { Principal } from "../principal.js";
import { rescoreWithFeedback } from "./hybrid-feedback.js";
import { fuse, type FusionMethod } from "./hybrid-fusion.js";
import { defaultRerankWeight, rerankHead, unreranked, type RankedResult } from "./hybrid-rerank.js";
import { rankingsOf, runLegs, type LegRankings, type RankedId } from "./hybrid-legs.js";
import type { FusedItem } from "./rrf.js";
import { describeFailure, roundMs, timed, type StageTimes } from "./search-legs.js";
import type { ResultScores } from "./search-views.js";

/**
 * What a search with `as_of` says about its semantic leg: vectors are kept
 * for current versions only, so the store's semantic search cannot answer
 * for an earlier instant and the full-text leg answers alone.
 */
export const asOfSemanticWarning =
  "as_of: vectors are kept for the current version of each entry only, so this search answered from full text over the versions current then (any of the query's words), without the semantic leg or reranking";

export { defaultRerankWeight, rerankPassageChars } from "./hybrid-rerank.js";

export interface HybridSearchRequest {
  query: string;
  filter: SearchFilterArgs;
  limit: number;
  offset: number;
  /** How the full-text leg reads the query; it runs once, in this mode. */
  ftsMode: FullTextModeName;
  /** Rank the full-text leg with pseudo-relevance feedback (default knobs). */
  ftsFeedback?: boolean | undefined;
  /** How the legs are fused (default `defaultFusionMethod`). */
  fusion?: FusionMethod | undefined;
  /** Reciprocal rank fusion's constant (used by `rrf` only). */
  rrfK: number;
  weights: { fts: number; semantic: number };
  /**
   * Leave out results scoring below this: the rerank score when reranking
   * ran (results it did not score are left out too), else the fused score.
   */
  minScore?: number | undefined;
  rerank: boolean;
  /**
   * A reranked result scores `rerankWeight · rerank score + (1 − rerankWeight)
   * · fused score rescaled to [0, 1] over the reranked head` (default
   * defaultRerankWeight; 1: the reranker alone decides).
   */
  rerankWeight?: number | undefined;
  /** Results each leg contributes (raised to offset + limit when that is more). */
  candidates: number;
  /** How many of the best fused results the reranker reorders; the rest follow in fused order. */
  rerankDepth: number;
  /** The deepest a leg's ranking goes. */
  maxDepth: number;
}

export interface HybridHit {
  entry: SearchEntry;
  rank: number;
  score: number;
  scores: ResultScores;
  /** What each leg added to the fused score. */
  contributions: { fts: number | null; semantic: number | null };
  chunk: TextSpan | undefined;
}

export interface HybridSearchResult {
  hits: HybridHit[];
  hasMore: boolean;
  /** Results left out for scoring below `minScore`. */
  droppedBelowMinScore: number;
  /** Whether `minScore` applied to rerank scores (else to fused scores). */
  floorOn: "rerank" | "fused";
  times: StageTimes;
  warnings: string[];
  /** With feedback on the full-text leg (and the leg answering): what it added to the query. */
  ftsFeedback: FeedbackUsed | null;
  legs: {
    fts: { ok: boolean; candidates: number };
    semantic: { ok: boolean; candidates: number };
    rerank: { ok: boolean; reranked: number };
  };
}

/**
 * The full-text leg re-ranked with feedback (hybrid-feedback.ts): the leg's
 * best entries that the semantic leg corroborates expand the query, which
 * then re-scores the candidates both legs found (a bounded set, instead of a
 * second pass over every entry holding any added word). The re-scored leg
 * contributes its best `legDepth`, as every leg does: min–max fusion
 * rescales over a leg's list, and a longer list's lower floor would lift
 * every full-text score against the semantic leg's.
 */
async function rescoredFullText(
  search: SearchClient,
  principal: Principal,
  request: HybridSearchRequest,
  legs: LegRankings,
  fused: readonly FusedItem[],
  legDepth: number,
  times: StageTimes,
): Promise<{ fts: RankedId[]; feedback: FeedbackUsed }> {
  const rescored = await timed(
    "hybrid",
    "feedback",
    () => rescoreWithFeedback(search, principal, request, { fts: legs.fts, semantic: legs.semantic }, fused),
    times,
  );
  return {
    fts: rescored.hits.slice(0, legDepth).map((hit) => ({ id: hit.entryId, score: hit.score })),
    feedback: rescored.feedback,
  };
}

/**
 * The results at or above `minScore`, on the score they are ranked by: the
 * reranked score where the reranker ran (it ranks the head, and results it
 * did not score have no comparable score), else the fused score. Either way
 * a prefix is kept.
 */
function aboveFloor(order: RankedResult[], floorOn: "rerank" | "fused", minScore: number | undefined) {
  if (minScore === undefined) return { kept: order, dropped: 0 };
  const kept = order.filter(({ item, blended }) =>
    floorOn === "rerank" ? blended !== undefined && blended >= minScore : item.score >= minScore,
  );
  return { kept, dropped: order.length - kept.length };
}

/** The shown page's results with their listings, ranks and per-leg scores; an entry without a listing is left out. */
function hitsOf(
  shown: readonly RankedResult[],
  offset: number,
  legs: LegRankings,
  contributionOf: (item: FusedItem, leg: "fts" | "semantic") => number | null,
): HybridHit[] {
  const ftsScore = new Map(legs.fts.map((item) => [item.id, item.score]));
  const semanticScore = new Map(legs.semantic.map((item) => [item.id, item.score]));
  return shown.flatMap(({ item, rerank, blended }, index): HybridHit[] => {
    const entry = legs.entries.get(item.id);
    if (entry === undefined) return [];
    const ftsRank = item.ranks.fts;
    const semanticRank = item.ranks.semantic;
    return [
      {
        entry,
        rank: offset + index + 1,
        score: blended ?? item.score,
        scores: {
          fts: ftsRank === undefined ? null : { rank: ftsRank, score: ftsScore.get(item.id) ?? 0 },
          semantic: semanticRank === undefined ? null : { rank: semanticRank, score: semanticScore.get(item.id) ?? 0 },
          fused: item.score,
          rerank: rerank ?? null,
        },
        contributions: { fts: contributionOf(item, "fts"), semantic: contributionOf(item, "semantic") },
        chunk: legs.chunks.get(item.id),
      },
    ];
  });
}

/** Fuses the legs, then again with the full-text leg re-scored by feedback when asked (and the leg answered). */
async function fuseLegs(
  search: SearchClient,
  principal: Principal,
  request: HybridSearchRequest,
  legs: LegRankings,
  withFeedback: boolean,
  legDepth: number,
  times: StageTimes,
  warnings: string[],
) {
  const fusionStarted = performance.now();
  let { fused, contributionOf } = fuse(request, legs.fts, legs.semantic);
  times.fusion = roundMs(performance.now() - fusionStarted);
  let feedback: FeedbackUsed | null = null;
  if (withFeedback && legs.fts.length > 0) {
    try {
      const rescored = await rescoredFullText(search, principal, request, legs, fused, legDepth, times);
      const refusionStarted = performance.now();
      legs.fts = rescored.fts;
      ({ fused, contributionOf } = fuse(request, legs.fts, legs.semantic));
      times.fusion = roundMs((times.fusion ?? 0) + performance.now() - refusionStarted);
      feedback = rescored.feedback;
    } catch (error) {
      warnings.push(
        `feedback on the full-text leg failed, so the legs are fused without it (${describeFailure(error)})`,
      );
    }
  }
  return { fused, contributionOf, feedback };
}

/**
 * The listings a search shows, read once the ranking is known, under the
 * access predicate and the filters again (an entry hidden or deleted since it
 * was ranked is left out). The best of the reranked head are read while the
 * reranker scores it, so the read costs the search nothing when the page
 * lies among them; a shown entry outside what was read ahead is read
 * afterwards.
 */
function pageListings(search: SearchClient, principal: Principal, filter: SearchFilterArgs, times: StageTimes) {
  const asked = new Set<string>();
  let ahead: Promise<SearchEntry[]> | undefined;
  const read = (ids: readonly string[]) =>
    timed("hybrid", "listings", () => search.listings(principal, [...ids], filter), times);
  return {
    ahead(ids: readonly string[]): void {
      for (const id of ids) asked.add(id);
      ahead = read(ids);
      // Awaited by `of`; a failure surfaces there, not as an unhandled rejection if the search fails first.
      ahead.catch(() => undefined);
    },
    async of(ids: readonly string[]): Promise<SearchEntry[]> {
      const listed = ahead === undefined ? [] : await ahead;
      const rest = ids.filter((id) => !asked.has(id));
      return rest.length === 0 ? listed : [...listed, ...(await read(rest))];
    },
  };
}

/** The fused ranking with its head reranked when asked, or in fused order (with a warning if the reranker failed). */
async function rankedOrder(
  search: SearchClient,
  principal: Principal,
  request: HybridSearchRequest,
  fused: readonly FusedItem[],
  chunks: ReadonlyMap<string, TextSpan>,
  historical: boolean,
  listings: ReturnType<typeof pageListings>,
  times: StageTimes,
  warnings: string[],
): Promise<{ order: RankedResult[]; reranked: number; ok: boolean }> {
  if (!request.rerank || historical) return { order: unreranked(fused), reranked: 0, ok: true };
  if (fused.length === 0) return { order: [], reranked: 0, ok: false };
  try {
    const weight = request.rerankWeight ?? defaultRerankWeight;
    const head = await rerankHead(
      search,
      principal,
      request.query,
      fused,
      chunks,
      {
        depth: request.rerankDepth,
        weight,
        // The head's first twice the page: reranking rarely lifts an entry past that into the page, and the read then
        // ends within the reranker's call (fifty listings would outlast it).
        whileReranking: (ids) => listings.ahead(ids.slice(0, 2 * (request.offset + request.limit))),
      },
      times,
    );
    return { ...head, ok: true };
  } catch (error) {
    warnings.push(`reranking failed, so results are in fused order (${describeFailure(error)})`);
    return { order: unreranked(fused), reranked: 0, ok: false };
  }
}

/**
 * Runs a hybrid search for `principal`. Each leg fetches `max(candidates,
 * offset + limit)` results (at most the ranking depth), so pages within the
 * first `candidates` results are cut from one fused ranking; the reranker
 * reorders the first `rerankDepth` of it whatever the page. The full-text leg
 * runs once, in `ftsMode`. A `minScore` floor is applied to the whole ranking
 * before the page is cut.
 */
export async function runHybridSearch(
  search: SearchClient,
  principal: Principal,
  request: HybridSearchRequest,
): Promise<HybridSearchResult> {
  const depth = request.offset + request.limit;
  const legDepth = Math.min(request.maxDepth, Math.max(request.candidates, depth));
  const warnings: string[] = [];
  const times: StageTimes = {};
  // As of an earlier instant only the full-text leg can answer (see asOfSemanticWarning); reranking would read today's text.
  const historical = request.filter.as_of !== undefined;
  if (historical) warnings.push(asOfSemanticWarning);
  // The legs rank ids; listings are read once the ranking is known (pageListings).
  const [fts, semantic] = await runLegs(search, principal, request, legDepth, historical, times);
  if (!fts.ok && semantic?.ok !== true) throw fts.error;
  if (!fts.ok)
    warnings.push(
      `the full-text leg failed, so results come from the semantic leg alone (${describeFailure(fts.error)})`,
    );
  if (semantic !== undefined && !semantic.ok)
    warnings.push(
      `the semantic leg failed, so results come from the full-text leg alone (${describeFailure(semantic.error)})`,
    );
  const ftsHits = fts.ok ? fts.value.hits : [];
  const semanticHits = semantic?.ok === true ? semantic.value.reply.hits : [];
  if (fts.ok) warnings.push(...fts.value.warnings);
  if (semantic?.ok === true) warnings.push(...semantic.value.reply.warnings);

  const legs = rankingsOf(ftsHits, semanticHits);
  const withFeedback = request.ftsFeedback === true && !historical && fts.ok;
  const { fused, contributionOf, feedback } = await fuseLegs(
    search,
    principal,
    request,
    legs,
    withFeedback,
    legDepth,
    times,
    warnings,
  );
  const listings = pageListings(search, principal, request.filter, times);
  const ranked = await rankedOrder(
    search,
    principal,
    request,
    fused,
    legs.chunks,
    historical,
    listings,
    times,
    warnings,
  );
  const floorOn = ranked.reranked > 0 ? ("rerank" as const) : ("fused" as const);
  const { kept, dropped } = aboveFloor(ranked.order, floorOn, request.minScore);
  const shown = kept.slice(request.offset, depth);
  // As of an instant the leg listed the versions current then itself.
  if (!historical && shown.length > 0)
    for (const entry of await listings.of(shown.map(({ item }) => item.id))) legs.entries.set(entry.id, entry);
  return {
    hits: hitsOf(shown, request.offset, legs, contributionOf),
    hasMore: kept.length > depth,
    droppedBelowMinScore: dropped,
    floorOn,
    times,
    warnings,
    ftsFeedback: historical && request.ftsFeedback === true && fts.ok ? fts.value.feedback : feedback,
    legs: {
      fts: { ok: fts.ok, candidates: ftsHits.length },
      semantic: { ok: semantic?.ok === true, candidates: semanticHits.length },
      rerank: { ok: ranked.ok, reranked: ranked.reranked },
    },
  };
}
