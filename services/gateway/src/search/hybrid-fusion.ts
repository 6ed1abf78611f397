/** Fusing a hybrid search's two legs: the methods, the default method and leg weights, and the fused ranking with what each leg added. */
import { fuseByReciprocalRank, type FusedItem } from "./rrf.js";
import { fuseByNormalisedScore } from "./score-fusion.js";

/** How a hybrid search fuses its legs: reciprocal rank, or each leg's scores rescaled (min–max or z-score) and summed. */
export const fusionMethods = ["rrf", "minmax", "zscore"] as const;
export type FusionMethod = (typeof fusionMethods)[number];

/**
 * The fusion a hybrid search uses unless told otherwise: min–max rescaled
 * scores, chosen on Cranfield and checked on CISI (docs/retrieval.md has the
 * figures); never tuned per collection.
 */
export const defaultFusionMethod: FusionMethod = "minmax";

/**
 * How much each leg counts in the fusion unless told otherwise: the semantic
 * leg 0.3 of full text, which ranks better on its own (chosen on
 * Cranfield, checked on CISI; docs/retrieval.md).
 */
export const defaultLegWeights = Object.freeze({ fts: 1, semantic: 0.3 });

/** What the fusion of a hybrid search takes from its request. */
export interface FusionRequest {
  /** How the legs are fused (default `defaultFusionMethod`). */
  fusion?: FusionMethod | undefined;
  /** Reciprocal rank fusion's constant (used by `rrf` only). */
  rrfK: number;
  weights: { fts: number; semantic: number };
}

/** The fused ranking of both legs by the request's method, and what each leg added to an item's fused score. */
export function fuse(
  request: FusionRequest,
  ftsList: { id: string; score: number }[],
  semanticList: { id: string; score: number }[],
) {
  const method = request.fusion ?? defaultFusionMethod;
  if (method === "rrf") {
    const fused = fuseByReciprocalRank(
      [
        { leg: "fts", ids: ftsList.map((item) => item.id), weight: request.weights.fts },
        { leg: "semantic", ids: semanticList.map((item) => item.id), weight: request.weights.semantic },
      ],
      request.rrfK,
    );
    const contributionOf = (item: FusedItem, leg: "fts" | "semantic") => {
      const rank = item.ranks[leg];
      return rank === undefined ? null : request.weights[leg] / (request.rrfK + rank);
    };
    return { fused, contributionOf };
  }
  const fused = fuseByNormalisedScore(
    [
      { leg: "fts", items: ftsList, weight: request.weights.fts },
      { leg: "semantic", items: semanticList, weight: request.weights.semantic },
    ],
    method,
  );
  const totalWeight = Math.max(0, request.weights.fts) + Math.max(0, request.weights.semantic);
  const normalisedOf = new Map(fused.map((item) => [item.id, item.normalised]));
  const contributionOf = (item: FusedItem, leg: "fts" | "semantic") => {
    const rescaled = normalisedOf.get(item.id)?.[leg];
    return rescaled === undefined
      ? null
      : totalWeight > 0
        ? (Math.max(0, request.weights[leg]) * rescaled) / totalWeight
        : 0;
  };
  return { fused: fused as FusedItem[], contributionOf };
}
