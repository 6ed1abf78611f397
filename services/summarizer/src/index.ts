import type { Logger, RunningService } from "@context-hub/common";
import { createHttpProviderClient, startGrpcService } from "@context-hub/common";
import { summarizerV1 } from "@context-hub/proto";
import { createBuiltinSummaryProvider } from "./builtin-summary-provider.js";
import { anthropicVersion, createAnthropicMessagesApi } from "./clients/anthropic-messages.js";
import { createLlmSummaryProvider, type ChatApi } from "./clients/llm-summary-provider.js";
import { createOllamaChatApi } from "./clients/ollama-chat.js";
import { createOpenAiChatApi, isOpenAiPlatform } from "./clients/openai-chat.js";
import type { SummarizerConfig } from "./config.js";
import { createSummarizerHandlers } from "./server.js";
import { createSummarizer } from "./summarizer.js";
import type { SummaryProvider } from "./summary-provider.js";

export { loadSummarizerConfig, summarizerProviders, type SummarizerConfig, type SummarizerHttpSettings, type SummarizerProviderName } from "./config.js";
export { createLlmSummaryProvider, type ChatAnswer, type ChatApi, type LlmSummaryProviderOptions } from "./clients/llm-summary-provider.js";
export { cleanSummary, stripPreamble, stripReasoning } from "./summary-cleanup.js";
export { buildSectionPrompt, buildSummaryPrompt, type ChatPrompt } from "./summary-prompts.js";
export type { SectionText, SummaryProvider, TextSource } from "./summary-provider.js";
export { builtinSummaryLength, builtinSummaryModel, createBuiltinSummaryProvider } from "./builtin-summary-provider.js";
export { summarizeExtractive, type ExtractiveOptions } from "./extractive-summary.js";
export { createSummarizer, type SectionSummary, type Summarizer, type SummarizerOptions } from "./summarizer.js";

export interface SummarizerDependencies {
  /** Replaces the provider chosen by `config.provider` (tests, custom runtimes). */
  provider?: SummaryProvider;
}

/** The provider `config.provider` names. */
export function createSummaryProvider(config: SummarizerConfig, logger?: Logger): SummaryProvider {
  switch (config.provider) {
    case "builtin":
      return createBuiltinSummaryProvider();
    case "openai":
    case "anthropic":
    case "ollama": {
      const http = config.http;
      if (http === undefined) throw new Error(`SUMMARIZER_PROVIDER ${config.provider} has no HTTP settings; build the config with loadSummarizerConfig`);
      const apiKey = http.apiKey?.reveal();
      const auth: Record<string, string> = apiKey === undefined ? {} : config.provider === "anthropic" ? { "x-api-key": apiKey } : { authorization: `Bearer ${apiKey}` };
      const client = createHttpProviderClient({
        provider: config.provider,
        operation: config.provider === "openai" ? "chat completions" : config.provider === "anthropic" ? "messages" : "chat",
        model: http.model,
        baseUrl: http.baseUrl,
        headers: config.provider === "anthropic" ? { ...auth, "anthropic-version": anthropicVersion } : auth,
        secrets: [apiKey],
        timeoutMs: http.timeoutMs,
        maxRetries: http.maxRetries,
        settingsPrefix: "SUMMARIZER",
        ...(logger === undefined ? {} : { logger }),
      });
      const api: ChatApi =
        config.provider === "openai"
          ? createOpenAiChatApi(client, { model: http.model, maxTokens: http.maxTokens, useMaxCompletionTokens: isOpenAiPlatform(http.baseUrl) })
          : config.provider === "anthropic"
            ? createAnthropicMessagesApi(client, { model: http.model, maxTokens: http.maxTokens })
            : createOllamaChatApi(client, { model: http.model, maxTokens: http.maxTokens });
      return createLlmSummaryProvider({ provider: config.provider, model: http.model, api, concurrency: http.concurrency, maxInputChars: http.maxInputChars });
    }
  }
}

/**
 * Starts the summarizer: gRPC SummarizerService plus the ops endpoint. No
 * provider needs a warm-up: the built-in one runs in-process, and an LLM
 * provider is ready at once (a down provider fails calls, not the start).
 */
export async function startSummarizer(config: SummarizerConfig, logger: Logger, dependencies: SummarizerDependencies = {}): Promise<RunningService> {
  const provider = dependencies.provider ?? createSummaryProvider(config, logger);
  const summarizer = createSummarizer({ provider, minChars: config.minChars, sectionMinChars: config.sectionMinChars, maxTextChars: config.maxTextChars });
  return startGrpcService({
    name: "summarizer",
    host: config.host,
    port: config.port,
    opsPort: config.opsPort,
    logger,
    register: (builder) => builder.addService(summarizerV1.SummarizerService, createSummarizerHandlers(summarizer)),
  });
}
