import type { Logger, ProviderClock, RunningService } from "@context-hub/common";
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
import { createBuiltinAnswerProvider, createLlmAnswerProvider, type AnswerProvider } from "./answer-provider.js";
import { createSummaryTextWork, type SummaryTextWork } from "./summary-text-work.js";

export {
  loadSummarizerConfig,
  summarizerProviders,
  type SummarizerConfig,
  type SummarizerHttpSettings,
  type SummarizerProviderName,
} from "./config.js";
export {
  createLlmSummaryProvider,
  type ChatAnswer,
  type ChatApi,
  type LlmSummaryProviderOptions,
} from "./clients/llm-summary-provider.js";
export {
  builtinAnswerModel,
  createBuiltinAnswerProvider,
  createLlmAnswerProvider,
  type AnswerProvider,
} from "./answer-provider.js";
export { buildAnswerPrompt, parseModelAnswer } from "./answer-prompts.js";
export { cleanSummary, stripPreamble, stripReasoning } from "./summary-cleanup.js";
export { buildSectionPrompt, buildSummaryPrompt, type ChatPrompt } from "./summary-prompts.js";
export type { AnswerRequest, SectionText, SummaryProvider, TextSource } from "./summary-provider.js";
export { builtinSummaryLength, builtinSummaryModel, createBuiltinSummaryProvider } from "./builtin-summary-provider.js";
export { summarizeExtractive, type ExtractiveOptions } from "./extractive-summary.js";
export { createSummarizer, type SectionSummary, type Summarizer, type SummarizerOptions } from "./summarizer.js";
export { createSummaryTextWork, type SummaryTextWork, type SummaryTextWorkOptions } from "./summary-text-work.js";

export interface SummarizerDependencies {
  /** Replaces the provider chosen by `config.provider` (tests, custom runtimes). */
  provider?: SummaryProvider;
  /** Replaces the answer provider chosen by `config.provider` (tests, custom runtimes). */
  answerProvider?: AnswerProvider;
}

/**
 * The chat API `config.provider` names (undefined for the built-in provider).
 * Its retries wait on `clock` (tests; the real clock by default).
 */
function createChatApi(config: SummarizerConfig, logger?: Logger, clock: ProviderClock = {}): ChatApi | undefined {
  if (config.provider === "builtin") return undefined;
  const http = config.http;
  if (http === undefined)
    throw new Error(
      `SUMMARIZER_PROVIDER ${config.provider} has no HTTP settings; build the config with loadSummarizerConfig`,
    );
  const apiKey = http.apiKey?.reveal();
  const auth: Record<string, string> =
    apiKey === undefined
      ? {}
      : config.provider === "anthropic"
        ? { "x-api-key": apiKey }
        : { authorization: `Bearer ${apiKey}` };
  const client = createHttpProviderClient({
    provider: config.provider,
    operation:
      config.provider === "openai" ? "chat completions" : config.provider === "anthropic" ? "messages" : "chat",
    model: http.model,
    baseUrl: http.baseUrl,
    headers: config.provider === "anthropic" ? { ...auth, "anthropic-version": anthropicVersion } : auth,
    secrets: [apiKey],
    timeoutMs: http.timeoutMs,
    maxRetries: http.maxRetries,
    settingsPrefix: "SUMMARIZER",
    ...(logger === undefined ? {} : { logger }),
    ...clock,
  });
  return config.provider === "openai"
    ? createOpenAiChatApi(client, {
        model: http.model,
        maxTokens: http.maxTokens,
        useMaxCompletionTokens: isOpenAiPlatform(http.baseUrl),
      })
    : config.provider === "anthropic"
      ? createAnthropicMessagesApi(client, { model: http.model, maxTokens: http.maxTokens })
      : createOllamaChatApi(client, { model: http.model, maxTokens: http.maxTokens });
}

/**
 * The summary provider `config.provider` names; the built-in one computes in `work`'s worker threads. An HTTP
 * provider's retries wait on `clock` (tests; the real clock by default).
 */
export function createSummaryProvider(
  config: SummarizerConfig,
  work: SummaryTextWork,
  logger?: Logger,
  clock: ProviderClock = {},
): SummaryProvider {
  const api = createChatApi(config, logger, clock);
  if (api === undefined || config.http === undefined) return createBuiltinSummaryProvider(work);
  return createLlmSummaryProvider({
    provider: config.provider,
    model: config.http.model,
    api,
    concurrency: config.http.concurrency,
    maxInputChars: config.http.maxInputChars,
  });
}

/** The answer provider over the same chat model as the summaries, or the built-in extractive one. */
export function createAnswerProvider(
  config: SummarizerConfig,
  work: SummaryTextWork,
  logger?: Logger,
  clock: ProviderClock = {},
): AnswerProvider {
  const api = createChatApi(config, logger, clock);
  if (api === undefined || config.http === undefined) return createBuiltinAnswerProvider(work);
  return createLlmAnswerProvider({
    provider: config.provider,
    model: config.http.model,
    api,
    maxInputChars: config.http.maxInputChars,
  });
}

/**
 * Starts the summarizer: gRPC SummarizerService plus the ops endpoint. The
 * work on caller text (built-in summaries, outlines) runs in worker threads
 * under SUMMARIZER_TEXT_BUDGET_MS, started in the background; an LLM
 * provider is ready at once (a down provider fails calls, not the start).
 */
export async function startSummarizer(
  config: SummarizerConfig,
  logger: Logger,
  dependencies: SummarizerDependencies = {},
): Promise<RunningService> {
  const work = createSummaryTextWork({ workers: config.textWorkers, budgetMs: config.textBudgetMs });
  work.warm().catch((error: unknown) => logger.error({ err: error }, "summarizer worker thread failed to start"));
  const provider = dependencies.provider ?? createSummaryProvider(config, work, logger);
  const answers = dependencies.answerProvider ?? createAnswerProvider(config, work, logger);
  const summarizer = createSummarizer({
    provider,
    work,
    minChars: config.minChars,
    sectionMinChars: config.sectionMinChars,
    maxTextChars: config.maxTextChars,
  });
  try {
    return await startGrpcService({
      name: "summarizer",
      host: config.host,
      port: config.port,
      opsPort: config.opsPort,
      logger,
      register: (builder) =>
        builder.addService(summarizerV1.SummarizerService, createSummarizerHandlers(summarizer, answers)),
      onClose: () => work.close(),
    });
  } catch (error) {
    await work.close();
    throw error;
  }
}
