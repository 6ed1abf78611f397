import { z } from "zod";
import type { HttpProviderClient } from "@context-hub/common";
import { orderByIndex, type EmbeddingApi } from "./http-embedding-provider.js";

const voyageEmbeddingsAnswer = z.object({
  data: z.array(z.object({ index: z.number().int().nonnegative(), embedding: z.array(z.number()) })),
});

export interface VoyageEmbeddingsOptions {
  model: string;
  /** Sent as `output_dimension` when set (voyage-3-large, voyage-3.5, voyage-code-3…). */
  requestDimension: number | undefined;
}

/**
 * Voyage `POST /v1/embeddings`: `{model, input: string[], input_type:
 * "document" | "query", output_dimension?}` → `{data: [{index, embedding}]}`.
 * Stored chunks go as "document", search queries as "query".
 */
export function createVoyageEmbeddingsApi(client: HttpProviderClient, options: VoyageEmbeddingsOptions): EmbeddingApi {
  return {
    client,
    async embedBatch(texts, inputType, signal) {
      const body = {
        model: options.model,
        input: texts,
        input_type: inputType,
        ...(options.requestDimension === undefined ? {} : { output_dimension: options.requestDimension }),
      };
      const answer = await client.postJson("/v1/embeddings", body, voyageEmbeddingsAnswer, signal);
      return orderByIndex(answer.data, texts.length, client);
    },
  };
}
