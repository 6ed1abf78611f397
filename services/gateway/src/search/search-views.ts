import type { Highlight, SearchEntry, TextSpan } from "../clients/search-client.js";

/** One passage of a result, best first within its entry. */
export interface HitPassage {
  nodeId: string;
  start: number;
  end: number;
  text: string;
  /** The reranker's score; null when it could not score (the passages then keep the store's order). */
  score: number | null;
}

/** A leg's say about a result: its rank there (1-based) and its score. */
export interface LegScore {
  rank: number;
  score: number;
}

export interface ResultScores {
  fts: LegScore | null;
  semantic: LegScore | null;
  /** The fused score (hybrid only). */
  fused: number | null;
  rerank: LegScore | null;
}

/** One search result as a tool returns it: the listing view of the entry, its rank and score in this result, and each leg's. */
export function toSearchResult(
  entry: SearchEntry,
  placing: { rank: number; score: number },
  scores: ResultScores,
  extras: {
    chunk?: TextSpan | undefined;
    highlights?: Highlight[] | undefined;
    explain?: HitExplain | undefined;
    passages?: readonly HitPassage[] | undefined;
  } = {},
) {
  return {
    ...entry.listing(),
    rank: placing.rank,
    score: placing.score,
    scores,
    best_chunk: extras.chunk === undefined ? null : { start: extras.chunk.start, end: extras.chunk.end },
    ...(extras.highlights === undefined
      ? {}
      : {
          highlights: extras.highlights.map((highlight) => ({
            text: highlight.text,
            matches: highlight.matches.map((match) => ({ start: match.start, end: match.end })),
          })),
        }),
    ...(extras.passages === undefined
      ? {}
      : {
          passages: extras.passages.map((passage) => ({
            node_id: passage.nodeId,
            start: passage.start,
            end: passage.end,
            text: passage.text,
            score: passage.score,
          })),
        }),
    ...(extras.explain === undefined ? {} : { explain: extras.explain }),
  };
}

export const noScores: ResultScores = Object.freeze({ fts: null, semantic: null, fused: null, rerank: null });

/** A leg's rank and score as explain_query shows them, with what it added to the fused score (null outside hybrid). */
export interface ExplainedLeg extends LegScore {
  contribution: number | null;
}

/** What explain_query adds to one result. */
export interface HitExplain {
  fts: ExplainedLeg | null;
  semantic: ExplainedLeg | null;
  fused: number | null;
  rerank: LegScore | null;
}

/** What explain_query adds to the reply: what the results are ranked by, the fusion used, and each stage's time. */
export interface SearchExplain {
  ranked_by: string;
  fusion_method: string | null;
  rrf_k: number | null;
  weights: { fts: number; semantic: number } | null;
  fts_mode: string | null;
  stages_ms: Record<string, number>;
}

/**
 * A single-leg page with a `min_score` floor applied: the store ranks by the
 * score the floor is on, so the hits below it are the page's tail, and every
 * hit after them (later pages included) is below it too. Without a floor the
 * page is returned as it is.
 */
export function applyScoreFloor<T extends { score: number }>(
  hits: readonly T[],
  hasMore: boolean,
  minScore: number | undefined,
): { hits: T[]; hasMore: boolean; dropped: number } {
  if (minScore === undefined) return { hits: [...hits], hasMore, dropped: 0 };
  const kept = hits.filter((hit) => hit.score >= minScore);
  const dropped = hits.length - kept.length;
  return { hits: kept, hasMore: hasMore && dropped === 0, dropped };
}
