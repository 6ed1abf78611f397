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
import { describeFailure, roundMs, searchDeadlines, semanticRanking, timed, type StageTimes } from "./search-legs.js";
import type { ResultScores } from "./search-views.js";

/**
 * What a search with `as_of` says about its semantic leg: vectors are kept
 * for current versions only, so the store's semantic search cannot answer
 * for an earlier instant and the full-text leg answers alone.
 */
export const asOfSemanticWarning =
  "as_of: vectors are kept for the current version of each entry only, so this search answered from full text over the versions current then (any of the query's words), without the semantic leg or reranking";

/**
 * How much the reranker's score counts in a reranked result's score; the
 * rest is its fused score rescaled over the reranked head. Chosen on
 * Cranfield and checked on CISI (docs/retrieval.md).
 */
export const defaultRerankWeight = 0.3;

/** Passage length handed to the reranker, in characters (about a chunk). */
export const rerankPassageChars = 1_200;

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

type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };
const settle = <T>(promise: Promise<T>): Promise<Settled<T>> =>
  promise.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );

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
  // The legs rank ids; only the shown page's listings are read, afterwards. As of an instant the full-text leg lists
  // the versions current then, which a listing of today's entries would not show, so it reads them itself.
  const idsOnly = !historical;
  const [fts, semantic] = await Promise.all([
    settle(
      timed(
        "hybrid",
        "fts",
        () =>
          search.fullText(principal, {
            query: request.query,
            mode: request.ftsMode,
            filter: request.filter,
            limit: legDepth,
            offset: 0,
            idsOnly,
            // As of an instant the leg runs feedback itself (a first pass and a second over every entry): the
            // re-scoring below needs today's candidates from both legs.
            ...(request.ftsFeedback === true && historical ? { feedback: {} } : {}),
          }),
        times,
      ),
    ),
    historical
      ? undefined
      : settle(
          semanticRanking(
            search,
            principal,
            request.query,
            request.filter,
            { limit: legDepth, offset: 0, idsOnly },
            "hybrid",
            times,
          ),
        ),
  ]);
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

  const fusionStarted = performance.now();
  const entries = new Map<string, SearchEntry>();
  const ftsScore = new Map<string, number>();
  const semanticScore = new Map<string, number>();
  const chunks = new Map<string, TextSpan>();
  const ftsList: { id: string; score: number }[] = [];
  const semanticList: { id: string; score: number }[] = [];
  for (const hit of ftsHits) {
    if (hit.entry !== undefined) entries.set(hit.entryId, hit.entry);
    ftsScore.set(hit.entryId, hit.score);
    ftsList.push({ id: hit.entryId, score: hit.score });
  }
  for (const hit of semanticHits) {
    if (hit.entry !== undefined && !entries.has(hit.entryId)) entries.set(hit.entryId, hit.entry);
    semanticScore.set(hit.entryId, hit.score);
    semanticList.push({ id: hit.entryId, score: hit.score });
    if (hit.chunk !== undefined) chunks.set(hit.entryId, hit.chunk);
  }
  let { fused, contributionOf } = fuse(request, ftsList, semanticList);
  times.fusion = roundMs(performance.now() - fusionStarted);
  let feedbackUsed: HybridSearchResult["ftsFeedback"] =
    historical && request.ftsFeedback === true && fts.ok ? fts.value.feedback : null;
  if (request.ftsFeedback === true && !historical && fts.ok && ftsList.length > 0) {
    // The leg's best entries that the semantic leg corroborates expand the query, which then re-scores the candidates
    // both legs found: a bounded set, instead of a second pass over every entry holding any added word.
    try {
      const rescored = await timed(
        "hybrid",
        "feedback",
        () => rescoreWithFeedback(search, principal, request, { fts: ftsList, semantic: semanticList }, fused),
        times,
      );
      const refusionStarted = performance.now();
      ftsList.length = 0;
      ftsScore.clear();
      // The re-scored leg contributes its best legDepth, as every leg does: min–max fusion rescales over a leg's list,
      // and a longer list's lower floor would lift every full-text score against the semantic leg's.
      for (const hit of rescored.hits.slice(0, legDepth)) {
        ftsScore.set(hit.entryId, hit.score);
        ftsList.push({ id: hit.entryId, score: hit.score });
      }
      ({ fused, contributionOf } = fuse(request, ftsList, semanticList));
      times.fusion = roundMs((times.fusion ?? 0) + performance.now() - refusionStarted);
      feedbackUsed = rescored.feedback;
    } catch (error) {
      warnings.push(
        `feedback on the full-text leg failed, so the legs are fused without it (${describeFailure(error)})`,
      );
    }
  }

  // Rerank the head of the fused ranking; the tail keeps its fused order behind it.
  let order = fused.map((item) => ({
    item,
    rerank: undefined as { rank: number; score: number } | undefined,
    blended: undefined as number | undefined,
  }));
  let reranked = 0;
  let rerankOk = !request.rerank || historical;
  if (request.rerank && !historical && fused.length > 0) {
    const head = fused.slice(0, Math.min(fused.length, request.rerankDepth));
    try {
      const passages = await timed(
        "hybrid",
        "passages",
        () =>
          search.passages(principal, {
            query: request.query,
            items: head.map((item) => ({ entryId: item.id, span: chunks.get(item.id) })),
            maxChars: rerankPassageChars,
          }),
        times,
      );
      const scored = await timed(
        "hybrid",
        "rerank",
        () =>
          search.rerank(
            request.query,
            passages.map((passage) => ({ id: passage.entryId, text: passage.text })),
            searchDeadlines.rerankMs,
          ),
        times,
      );
      const rerankOf = new Map(scored.map((result, index) => [result.id, { rank: index + 1, score: result.score }]));
      const headIds = new Set(head.map((item) => item.id));
      // The reranker judges a passage; the fused score judges the whole entry from both legs. Blend the two, the
      // fused score rescaled over the head so that every fusion method contributes on the reranker's scale.
      const weight = request.rerankWeight ?? defaultRerankWeight;
      let low = Number.POSITIVE_INFINITY;
      let high = Number.NEGATIVE_INFINITY;
      for (const item of head) {
        low = Math.min(low, item.score);
        high = Math.max(high, item.score);
      }
      const rescaledFused = (score: number) => (high > low ? (score - low) / (high - low) : 1);
      const reordered = head
        .map((item, fusedIndex) => {
          const rerank = rerankOf.get(item.id);
          return {
            item,
            rerank,
            fusedIndex,
            blended:
              rerank === undefined ? undefined : weight * rerank.score + (1 - weight) * rescaledFused(item.score),
          };
        })
        .sort(
          (a, b) =>
            (b.blended ?? Number.NEGATIVE_INFINITY) - (a.blended ?? Number.NEGATIVE_INFINITY) ||
            a.fusedIndex - b.fusedIndex,
        )
        .map(({ item, rerank, blended }) => ({ item, rerank, blended }));
      order = [...reordered, ...order.filter((entry) => !headIds.has(entry.item.id))];
      reranked = rerankOf.size;
      rerankOk = true;
    } catch (error) {
      warnings.push(`reranking failed, so results are in fused order (${describeFailure(error)})`);
    }
  }

  // The floor is on the score the results are ranked by: the reranked score where the reranker ran (it ranks the head,
  // and results it did not score have no comparable score), else the fused score. Either way it keeps a prefix.
  const floorOn = reranked > 0 ? ("rerank" as const) : ("fused" as const);
  let droppedBelowMinScore = 0;
  if (request.minScore !== undefined) {
    const floor = request.minScore;
    const kept = order.filter(({ item, blended }) =>
      floorOn === "rerank" ? blended !== undefined && blended >= floor : item.score >= floor,
    );
    droppedBelowMinScore = order.length - kept.length;
    order = kept;
  }

  const shown = order.slice(request.offset, depth);
  if (idsOnly && shown.length > 0) {
    // One read for the page, under the access predicate and the filters again: an entry hidden or deleted since it was ranked is left out.
    const ids = shown.map(({ item }) => item.id);
    const listed = await timed("hybrid", "listings", () => search.listings(principal, ids, request.filter), times);
    for (const entry of listed) entries.set(entry.id, entry);
  }
  const hits = shown.flatMap(({ item, rerank, blended }, index): HybridHit[] => {
    const entry = entries.get(item.id);
    if (entry === undefined) return [];
    const ftsRank = item.ranks.fts;
    const semanticRank = item.ranks.semantic;
    return [
      {
        entry,
        rank: request.offset + index + 1,
        score: blended ?? item.score,
        scores: {
          fts: ftsRank === undefined ? null : { rank: ftsRank, score: ftsScore.get(item.id) ?? 0 },
          semantic: semanticRank === undefined ? null : { rank: semanticRank, score: semanticScore.get(item.id) ?? 0 },
          fused: item.score,
          rerank: rerank ?? null,
        },
        contributions: { fts: contributionOf(item, "fts"), semantic: contributionOf(item, "semantic") },
        chunk: chunks.get(item.id),
      },
    ];
  });
  return {
    hits,
    hasMore: order.length > depth,
    droppedBelowMinScore,
    floorOn,
    times,
    warnings,
    ftsFeedback: feedbackUsed,
    legs: {
      fts: { ok: fts.ok, candidates: ftsHits.length },
      semantic: { ok: semantic?.ok === true, candidates: semanticHits.length },
      rerank: { ok: rerankOk, reranked },
    },
  };
}
