import { z } from "zod";
import type { HttpProviderClient } from "@context-hub/common";
import { scoresByIndex, type RerankApi } from "./http-rerank-provider.js";

const rerankResult = z.object({ index: z.number().int().nonnegative(), relevance_score: z.number() });
const cohereRerankAnswer = z.preprocess(
  // Voyage's rerank answers with `data` where Cohere, Jina and vLLM use `results`.
  (value) => (typeof value === "object" && value !== null && !("results" in value) && "data" in value ? { ...value, results: (value as { data: unknown }).data } : value),
  z.object({ results: z.array(rerankResult) }),
);

/**
 * Cohere-compatible `POST /v1/rerank` (Cohere, Jina, vLLM, and Voyage's
 * answer shape): `{model, query, documents: string[], top_n}` with `top_n` the
 * batch size, so every passage gets a score → `{results: [{index, relevance_score}]}`.
 */
export function createCohereRerankApi(client: HttpProviderClient, options: { model: string }): RerankApi {
  return {
    client,
    async scoreBatch(query, texts, signal) {
      const answer = await client.postJson("/v1/rerank", { model: options.model, query, documents: texts, top_n: texts.length }, cohereRerankAnswer, signal);
      return scoresByIndex(
        answer.results.map((result) => ({ index: result.index, score: result.relevance_score })),
        texts.length,
        client,
      );
    },
  };
}
