import { z } from "zod";
import type { HttpProviderClient } from "@context-hub/common";
import type { ChatApi } from "./llm-summary-provider.js";

const ollamaChatAnswer = z.object({
  message: z.object({ content: z.string() }),
  done_reason: z.string().nullish(),
});

export interface OllamaChatOptions {
  model: string;
  maxTokens: number;
}

/**
 * Ollama's native `POST /api/chat`: `{model, messages: [system, user], stream:
 * false, options: {num_predict}}` → `message.content`.
 */
export function createOllamaChatApi(client: HttpProviderClient, options: OllamaChatOptions): ChatApi {
  return {
    client,
    async complete(prompt, signal) {
      const body = {
        model: options.model,
        messages: [
          { role: "system", content: prompt.system },
          { role: "user", content: prompt.user },
        ],
        stream: false,
        options: { num_predict: options.maxTokens },
      };
      const answer = await client.postJson("/api/chat", body, ollamaChatAnswer, signal);
      return { text: answer.message.content, truncated: answer.done_reason === "length" };
    },
  };
}
