import { z } from "zod";
import type { HttpProviderClient } from "@context-hub/common";
import { scoresByIndex, type RerankApi } from "./http-rerank-provider.js";

/** One scored document of a `/v1/rerank` answer: its position in the request and its relevance. */
export const relevanceResult = z.object({ index: z.number().int().nonnegative(), relevance_score: z.number() });

export type RelevanceResult = z.output<typeof relevanceResult>;

export interface RelevanceRerankOptions {
  model: string;
  /** Body fields beyond `model`, `query` and `documents` for a request of `count` documents (how the API is asked for every score). */
  requestFields(count: number): Record<string, unknown>;
  /** Validates the answer and picks its list of results. */
  answer: z.ZodType<RelevanceResult[]>;
}

/**
 * The `POST {base}/v1/rerank` APIs that take `{model, query, documents:
 * string[]}` and answer with `{index, relevance_score}` per document (Cohere
 * and its compatibles, Voyage); they differ only in how a request asks for
 * every document's score and in the name of the answer's list.
 */
export function createRelevanceRerankApi(client: HttpProviderClient, options: RelevanceRerankOptions): RerankApi {
  return {
    client,
    async scoreBatch(query, texts, signal) {
      const body = { model: options.model, query, documents: texts, ...options.requestFields(texts.length) };
      const results = await client.postJson("/v1/rerank", body, options.answer, signal);
      return scoresByIndex(
        results.map((result) => ({ index: result.index, score: result.relevance_score })),
        texts.length,
        client,
      );
    },
  };
}
