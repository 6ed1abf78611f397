import { z } from "zod";
import type { HttpProviderClient } from "@context-hub/common";
import type { ChatApi } from "./llm-summary-provider.js";

const chatCompletionAnswer = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({ content: z.string().nullish() }),
        finish_reason: z.string().nullish(),
      }),
    )
    .min(1),
});

export interface OpenAiChatOptions {
  model: string;
  maxTokens: number;
  /**
   * Send the limit as `max_completion_tokens` (what api.openai.com requires
   * for reasoning models) instead of `max_tokens` (what most compatible
   * servers read).
   */
  useMaxCompletionTokens: boolean;
}

/**
 * Whether a base URL is OpenAI's own platform, which refuses `max_tokens` for
 * its reasoning models and wants `max_completion_tokens`; compatible servers
 * (vLLM, llama.cpp, LM Studio, Ollama's /v1, gateways) mostly read only `max_tokens`.
 */
export function isOpenAiPlatform(baseUrl: string): boolean {
  return new URL(baseUrl).hostname === "api.openai.com";
}

/**
 * OpenAI-compatible `POST /v1/chat/completions`: `{model, messages: [system,
 * user], max_tokens | max_completion_tokens}` → `choices[0].message.content`.
 */
export function createOpenAiChatApi(client: HttpProviderClient, options: OpenAiChatOptions): ChatApi {
  const limitField = options.useMaxCompletionTokens ? "max_completion_tokens" : "max_tokens";
  return {
    client,
    async complete(prompt, signal) {
      const body = {
        model: options.model,
        messages: [
          { role: "system", content: prompt.system },
          { role: "user", content: prompt.user },
        ],
        [limitField]: options.maxTokens,
      };
      const answer = await client.postJson("/v1/chat/completions", body, chatCompletionAnswer, signal);
      const [choice] = answer.choices;
      return { text: choice?.message.content ?? "", truncated: choice?.finish_reason === "length" };
    },
  };
}
