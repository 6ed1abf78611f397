import { z } from "zod";
import type { HttpProviderClient } from "@context-hub/common";
import { orderByIndex, type EmbeddingApi } from "./http-embedding-provider.js";

const openAiEmbeddingsAnswer = z.object({
  data: z.array(z.object({ index: z.number().int().nonnegative(), embedding: z.array(z.number()) })),
});

export interface OpenAiEmbeddingsOptions {
  model: string;
  /** Sent as `dimensions` when set (models that can shorten their vectors, e.g. text-embedding-3-*). */
  requestDimension: number | undefined;
}

/**
 * OpenAI-compatible `POST /v1/embeddings` (OpenAI, Azure-compatible gateways,
 * vLLM, LM Studio, llama.cpp server, Ollama's /v1, TEI's OpenAI route):
 * `{model, input: string[], encoding_format: "float", dimensions?}` →
 * `{data: [{index, embedding}]}`.
 */
export function createOpenAiEmbeddingsApi(client: HttpProviderClient, options: OpenAiEmbeddingsOptions): EmbeddingApi {
  return {
    client,
    async embedBatch(texts, _inputType, signal) {
      const body = {
        model: options.model,
        input: texts,
        encoding_format: "float",
        ...(options.requestDimension === undefined ? {} : { dimensions: options.requestDimension }),
      };
      const answer = await client.postJson("/v1/embeddings", body, openAiEmbeddingsAnswer, signal);
      return orderByIndex(answer.data, texts.length, client);
    },
  };
}
