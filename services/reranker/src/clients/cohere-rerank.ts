import { z } from "zod";
import type { HttpProviderClient } from "@context-hub/common";
import type { RerankApi } from "./http-rerank-provider.js";
import { createRelevanceRerankApi, relevanceResult } from "./relevance-rerank.js";

const cohereRerankAnswer = z.object({ results: z.array(relevanceResult) }).transform((answer) => answer.results);

/**
 * Cohere-compatible `POST /v1/rerank` (Cohere, Jina, vLLM): `{model, query,
 * documents: string[], top_n}` with `top_n` the batch size, so every passage
 * gets a score → `{results: [{index, relevance_score}]}`.
 */
export function createCohereRerankApi(client: HttpProviderClient, options: { model: string }): RerankApi {
  return createRelevanceRerankApi(client, {
    model: options.model,
    requestFields: (count) => ({ top_n: count }),
    answer: cohereRerankAnswer,
  });
}
