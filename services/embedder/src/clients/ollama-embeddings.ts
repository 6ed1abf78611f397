import { z } from "zod";
import type { HttpProviderClient } from "@context-hub/common";
import type { EmbeddingApi } from "./http-embedding-provider.js";

const ollamaEmbedAnswer = z.object({ embeddings: z.array(z.array(z.number())) });

export interface OllamaEmbeddingsOptions {
  model: string;
  /** Sent as `dimensions` when set (recent Ollama versions, models that can shorten their vectors). */
  requestDimension: number | undefined;
}

/**
 * Ollama's native `POST /api/embed`: `{model, input: string[], dimensions?}` →
 * `{embeddings: number[][]}`, one per input in input order (the API has no index).
 */
export function createOllamaEmbeddingsApi(client: HttpProviderClient, options: OllamaEmbeddingsOptions): EmbeddingApi {
  return {
    client,
    async embedBatch(texts, _inputType, signal) {
      const body = {
        model: options.model,
        input: texts,
        ...(options.requestDimension === undefined ? {} : { dimensions: options.requestDimension }),
      };
      const answer = await client.postJson("/api/embed", body, ollamaEmbedAnswer, signal);
      if (answer.embeddings.length !== texts.length)
        throw client.malformed(`${answer.embeddings.length} embeddings for ${texts.length} inputs`);
      return answer.embeddings;
    },
  };
}
