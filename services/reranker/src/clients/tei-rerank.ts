import { z } from "zod";
import type { HttpProviderClient } from "@context-hub/common";
import { scoresByIndex, type RerankApi } from "./http-rerank-provider.js";

const teiRerankAnswer = z.array(z.object({ index: z.number().int().nonnegative(), score: z.number() }));

/**
 * Hugging Face text-embeddings-inference `POST /rerank`: `{query, texts,
 * raw_scores: false, truncate: true}` → `[{index, score}]` (sigmoid scores in
 * [0, 1]; `truncate` cuts passages longer than the model's window instead of
 * failing the whole call). TEI serves one model, so none is sent.
 */
export function createTeiRerankApi(client: HttpProviderClient): RerankApi {
  return {
    client,
    async scoreBatch(query, texts, signal) {
      const answer = await client.postJson(
        "/rerank",
        { query, texts, raw_scores: false, truncate: true },
        teiRerankAnswer,
        signal,
      );
      return scoresByIndex(answer, texts.length, client);
    },
  };
}
