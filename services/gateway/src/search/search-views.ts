import type { searchV1, storeV1 } from "@context-hub/proto";
import { toEntryListing } from "../entry-views.js";

/** A leg's say about a result: its rank there (1-based) and its score. */
export interface LegScore {
  rank: number;
  score: number;
}

export interface ResultScores {
  fts: LegScore | null;
  semantic: LegScore | null;
  /** The reciprocal-rank-fusion score (hybrid only). */
  fused: number | null;
  rerank: LegScore | null;
}

/** One search result as a tool returns it: the listing view of the entry, its rank and score in this result, and each leg's. */
export function toSearchResult(
  entry: storeV1.Entry,
  placing: { rank: number; score: number },
  scores: ResultScores,
  extras: { chunk?: { start: number; end: number } | undefined; highlights?: searchV1.Highlight[] | undefined } = {},
) {
  return {
    ...toEntryListing(entry),
    rank: placing.rank,
    score: placing.score,
    scores,
    best_chunk: extras.chunk === undefined ? null : { start: extras.chunk.start, end: extras.chunk.end },
    ...(extras.highlights === undefined
      ? {}
      : { highlights: extras.highlights.map((highlight) => ({ text: highlight.text, matches: highlight.matches.map((match) => ({ start: match.start, end: match.end })) })) }),
  };
}

export const noScores: ResultScores = Object.freeze({ fts: null, semantic: null, fused: null, rerank: null });
