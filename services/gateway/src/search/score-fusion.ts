/**
 * Score-normalised fusion: each leg's scores are rescaled to [0, 1] over the
 * candidates that leg returned, and an item's fused score is the weighted
 * mean of its rescaled scores, an item missing from a leg counting 0 there.
 * Unlike reciprocal rank, it keeps how far apart a leg's scores are: a
 * full-text hit far ahead of the rest stays far ahead after fusion.
 */
import type { FusedItem } from "./rrf.js";

/** One leg's ranking with its scores: best first, higher is better. */
export interface ScoredList {
  leg: string;
  items: readonly { id: string; score: number }[];
  /** How much this leg counts (default 1; 0 ignores it). */
  weight?: number;
}

/** How a leg's scores are rescaled before they are summed. */
export type ScoreNormalisation = "minmax" | "zscore";

/** A fused item with each leg's rescaled score (what it added before weighting). */
export interface ScoreFusedItem extends FusedItem {
  normalised: Record<string, number>;
}

/**
 * The function that rescales one leg's scores to [0, 1]: min–max maps the
 * leg's worst candidate to 0 and its best to 1; z-score standardises, then
 * maps three standard deviations either side of the mean onto [0, 1]
 * (clamped), so a leg's typical candidate lands near 0.5. A leg whose scores are all equal
 * gives each candidate 1: it found them, and cannot tell them apart.
 */
function toRescaler(scores: readonly number[], normalisation: ScoreNormalisation): (score: number) => number {
  if (scores.length === 0) return () => 0;
  if (normalisation === "minmax") {
    let min = Number.POSITIVE_INFINITY;
    let max = Number.NEGATIVE_INFINITY;
    for (const score of scores) {
      if (score < min) min = score;
      if (score > max) max = score;
    }
    const range = max - min;
    return range > 0 ? (score) => (score - min) / range : () => 1;
  }
  const mean = scores.reduce((sum, score) => sum + score, 0) / scores.length;
  const deviation = Math.sqrt(scores.reduce((sum, score) => sum + (score - mean) ** 2, 0) / scores.length);
  return deviation > 0 ? (score) => Math.min(1, Math.max(0, ((score - mean) / deviation + 3) / 6)) : () => 1;
}

/**
 * Fuses `lists` by rescaled score. The fused score is Σ weight·rescaled /
 * Σ weight over the legs with a positive weight, so it lies in [0, 1] and 1
 * means best in every leg. Best first; ties go to the item with the better
 * best rank, then to the smaller id. An id listed twice in one list counts
 * at its first (best) place.
 */
export function fuseByNormalisedScore(
  lists: readonly ScoredList[],
  normalisation: ScoreNormalisation,
): ScoreFusedItem[] {
  const totalWeight = lists.reduce((sum, list) => sum + Math.max(0, list.weight ?? 1), 0);
  const fused = new Map<string, ScoreFusedItem>();
  for (const list of lists) {
    const weight = Math.max(0, list.weight ?? 1);
    const rescale = toRescaler(
      list.items.map((item) => item.score),
      normalisation,
    );
    list.items.forEach((candidate, index) => {
      const item = fused.get(candidate.id) ?? { id: candidate.id, score: 0, ranks: {}, normalised: {} };
      if (item.ranks[list.leg] !== undefined) return;
      const rescaled = rescale(candidate.score);
      item.ranks[list.leg] = index + 1;
      item.normalised[list.leg] = rescaled;
      if (totalWeight > 0) item.score += (weight * rescaled) / totalWeight;
      fused.set(candidate.id, item);
    });
  }
  const bestRank = (item: FusedItem) => Math.min(...Object.values(item.ranks));
  return [...fused.values()].sort(
    (a, b) => b.score - a.score || bestRank(a) - bestRank(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
}
