import { z } from "zod";
import type { HttpProviderClient } from "@context-hub/common";
import type { ChatApi } from "./llm-summary-provider.js";

const messagesAnswer = z.object({
  content: z.array(z.object({ type: z.string(), text: z.string().optional() })),
  stop_reason: z.string().nullish(),
});

export interface AnthropicMessagesOptions {
  model: string;
  maxTokens: number;
}

/** The API version header Anthropic requires; the request and response fields used here are stable under it. */
export const anthropicVersion = "2023-06-01";

/**
 * Anthropic `POST /v1/messages` (headers `x-api-key`, `anthropic-version`):
 * `{model, max_tokens, system, messages: [user]}` → the `text` of every
 * `content[]` block of type "text", joined (thinking blocks are skipped).
 */
export function createAnthropicMessagesApi(client: HttpProviderClient, options: AnthropicMessagesOptions): ChatApi {
  return {
    client,
    async complete(prompt, signal) {
      const body = {
        model: options.model,
        max_tokens: options.maxTokens,
        system: prompt.system,
        messages: [{ role: "user", content: prompt.user }],
      };
      const answer = await client.postJson("/v1/messages", body, messagesAnswer, signal);
      const text = answer.content
        .filter((block) => block.type === "text")
        .map((block) => block.text ?? "")
        .join("");
      return { text, truncated: answer.stop_reason === "max_tokens" };
    },
  };
}
