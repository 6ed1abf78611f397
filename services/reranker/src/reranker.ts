import { invalidArgument, observeProviderRequest } from "@context-hub/common";
import type { RerankProvider } from "./rerank-provider.js";

export interface RerankerOptions {
  provider: RerankProvider;
  /** Most passages accepted in one call. */
  maxPassages: number;
  /** Longest query or passage accepted, in UTF-16 code units. */
  maxTextChars: number;
}

export interface RankedPassage {
  id: string;
  /** Position of the passage in the request. */
  index: number;
  score: number;
}

export interface Reranker {
  describe(): { provider: string; model: string };
  /**
   * The passages ordered by the provider's score, best first; equal scores
   * keep request order. At most `topN` results; 0 means all.
   *
   * @throws ContextHubError INVALID_ARGUMENT when the query has no words, or
   * there are more than `maxPassages` passages, or a text exceeds `maxTextChars`.
   */
  rerank(
    query: string,
    passages: readonly { id: string; text: string }[],
    topN: number,
    signal?: AbortSignal,
  ): Promise<RankedPassage[]>;
}

/** The reranker's domain: validation, ordering and truncation around a provider. */
export function createReranker(options: RerankerOptions): Reranker {
  const { provider, maxPassages, maxTextChars } = options;
  return {
    describe: () => provider.describe(),
    async rerank(query, passages, topN, signal) {
      if (!/[\p{L}\p{N}]/u.test(query))
        throw invalidArgument("query has no words to rank by", "send the search text as the query");
      if (query.length > maxTextChars)
        throw invalidArgument(
          `query has ${query.length} characters; at most ${maxTextChars} are accepted`,
          "shorten the query",
        );
      if (passages.length > maxPassages)
        throw invalidArgument(
          `${passages.length} passages sent; at most ${maxPassages} are accepted per call`,
          "rerank fewer candidates or split them into several calls",
        );
      passages.forEach((passage, index) => {
        if (passage.text.length > maxTextChars)
          throw invalidArgument(
            `passages[${index}] has ${passage.text.length} characters; at most ${maxTextChars} are accepted`,
            "send a preview or the best chunk instead of the whole text",
          );
      });
      if (passages.length === 0) return [];
      const scores = await observeProviderRequest(provider.describe().provider, "rerank", () =>
        provider.score(
          query,
          passages.map((passage) => passage.text),
          signal,
        ),
      );
      if (scores.length !== passages.length || !scores.every(Number.isFinite))
        throw new Error(
          `rerank provider returned ${scores.length} scores (finite: ${scores.every(Number.isFinite)}) for ${passages.length} passages`,
        );
      const ranked = passages.map((passage, index) => ({ id: passage.id, index, score: scores[index] as number }));
      ranked.sort((left, right) => right.score - left.score || left.index - right.index);
      return topN > 0 ? ranked.slice(0, topN) : ranked;
    },
  };
}
