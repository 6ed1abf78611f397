import { z } from "zod";
import type { HttpProviderClient } from "@context-hub/common";
import type { RerankApi } from "./http-rerank-provider.js";
import { createRelevanceRerankApi, relevanceResult } from "./relevance-rerank.js";

const voyageRerankAnswer = z.object({ data: z.array(relevanceResult) }).transform((answer) => answer.data);

/**
 * Voyage AI `POST /v1/rerank`: `{model, query, documents: string[], top_k,
 * truncation: true}` with `top_k` the batch size, so every passage gets a
 * score → `{data: [{index, relevance_score}], model, usage}`. `truncation`
 * cuts a passage longer than the model's window instead of failing the call
 * (Voyage's default, sent so that a change of that default does not change it here).
 */
export function createVoyageRerankApi(client: HttpProviderClient, options: { model: string }): RerankApi {
  return createRelevanceRerankApi(client, {
    model: options.model,
    requestFields: (count) => ({ top_k: count, truncation: true }),
    answer: voyageRerankAnswer,
  });
}
