import { z } from "zod";
import {
  commonEnvSchema,
  envEnum,
  envInteger,
  envString,
  loadConfig,
  resolveHttpProviderSettings,
  type HttpProviderRequirements,
  type Secret,
} from "@context-hub/common";

/** Summary providers this build knows. */
export const summarizerProviders = ["builtin", "openai", "anthropic", "ollama"] as const;

export type SummarizerProviderName = (typeof summarizerProviders)[number];

/** Default base URL and key policy of each HTTP provider (see docs/providers.md). */
export const summarizerProviderRequirements: Record<
  Exclude<SummarizerProviderName, "builtin">,
  HttpProviderRequirements
> = {
  openai: { defaultBaseUrl: "https://api.openai.com", apiKey: "with-default-base-url" },
  anthropic: { defaultBaseUrl: "https://api.anthropic.com", apiKey: "with-default-base-url" },
  ollama: { defaultBaseUrl: "http://127.0.0.1:11434", apiKey: "never" },
};

/** Settings of an LLM summary provider. */
export interface SummarizerHttpSettings {
  baseUrl: string;
  apiKey: Secret | undefined;
  model: string;
  timeoutMs: number;
  maxRetries: number;
  /** Most tokens the model may generate per answer (reasoning included). */
  maxTokens: number;
  /** Most provider requests in flight in this worker process, summaries and section summaries together. */
  concurrency: number;
  /** Longest text put into one prompt; longer texts are cut. */
  maxInputChars: number;
}

/** Every variable the summarizer reads: docs/configuration.md is generated from these. */
export const summarizerEnvVariables = z.object({
  ...commonEnvSchema,
  SUMMARIZER_HOST: envString("127.0.0.1").describe("Address to bind (the Helm chart sets `0.0.0.0`)"),
  SUMMARIZER_PORT: envInteger(50053, 0, 65535).describe("gRPC port; 0 picks a free one"),
  SUMMARIZER_OPS_PORT: envInteger(9093, -1, 65535).describe(
    "`/metrics`, `/healthz`, `/readyz`; 0 picks a free one, -1 disables",
  ),
  SUMMARIZER_PROVIDER: envEnum(summarizerProviders, "builtin").describe(
    "`builtin` (extractive, no network), `openai` (OpenAI-compatible chat completions), `anthropic` (Messages API) or `ollama` (`/api/chat`); see [providers.md](providers.md)",
  ),
  SUMMARIZER_MIN_CHARS: envInteger(500, 0, 10_000_000).describe(
    "Texts shorter than this (in characters) get an empty summary",
  ),
  SUMMARIZER_SECTION_MIN_CHARS: envInteger(400, 0, 10_000_000).describe(
    "Sections shorter than this get no node summary",
  ),
  SUMMARIZER_MAX_TEXT_CHARS: envInteger(1_000_000, 1, 100_000_000).describe("Longest text accepted"),
  SUMMARIZER_TEXT_BUDGET_MS: envInteger(3000, 10, 600_000).describe(
    "Most time one text's built-in summary, outline or built-in node summaries may take in a worker thread (10–600000); past it the worker is terminated and the call fails with `TEXT_BUDGET_EXCEEDED` naming the stage (`summarize`, `outline`, `node summaries`). See [reliability.md](reliability.md#work-on-caller-text)",
  ),
  SUMMARIZER_TEXT_WORKERS: envInteger(1, 1, 64).describe(
    "Worker threads for that work (1–64); further texts wait for a free one, so a text's summary and its node summaries take turns instead of contending for the same cores",
  ),
  SUMMARIZER_BASE_URL: envString("").describe("LLM providers only: where the API is (path prefix and query kept)"),
  SUMMARIZER_API_KEY: envString("").describe(
    "LLM providers only: `Authorization: Bearer` (`x-api-key` for `anthropic`); required for `openai` and `anthropic` at their default base URL; never logged",
  ),
  SUMMARIZER_MODEL: envString("").describe("Model id sent to the API and reported by `Describe`"),
  SUMMARIZER_TIMEOUT_MS: envInteger(25_000, 100, 600_000).describe(
    "Time budget of one HTTP request, its retries and waits included (below the gateway's 30 s summary deadline)",
  ),
  SUMMARIZER_MAX_RETRIES: envInteger(2, 0, 10).describe("Extra attempts on 429, 5xx and network errors"),
  SUMMARIZER_MAX_TOKENS: envInteger(1024, 16, 200_000).describe(
    "Most tokens the model may generate per answer, reasoning included (raise it for reasoning models)",
  ),
  SUMMARIZER_CONCURRENCY: envInteger(16, 1, 256).describe(
    "Most provider requests in flight in one summarizer process (1–256), summaries and section summaries together, however many texts and calls arrive at once; a waiting summary is sent before any waiting section, and sections hold at most half the places (replicas multiply it)",
  ),
  SUMMARIZER_MAX_INPUT_CHARS: envInteger(100_000, 1000, 10_000_000).describe(
    "Longest text put into one prompt; a longer one is cut (never inside a surrogate pair) and the prompt says `[… the rest of the text is cut …]`, so a huge entry does not overflow the model's context and fail the write",
  ),
});

const summarizerEnvSchema = summarizerEnvVariables.transform((env, context) => {
  const provider = env.SUMMARIZER_PROVIDER;
  let http: SummarizerHttpSettings | undefined;
  if (provider !== "builtin") {
    const shared = resolveHttpProviderSettings(
      "SUMMARIZER",
      provider,
      {
        baseUrl: env.SUMMARIZER_BASE_URL,
        apiKey: env.SUMMARIZER_API_KEY,
        model: env.SUMMARIZER_MODEL,
        timeoutMs: env.SUMMARIZER_TIMEOUT_MS,
        maxRetries: env.SUMMARIZER_MAX_RETRIES,
      },
      summarizerProviderRequirements[provider],
      (variable, message) => context.addIssue({ code: "custom", path: [variable], message }),
    );
    if (shared === undefined) return z.NEVER;
    http = {
      ...shared,
      maxTokens: env.SUMMARIZER_MAX_TOKENS,
      concurrency: env.SUMMARIZER_CONCURRENCY,
      maxInputChars: env.SUMMARIZER_MAX_INPUT_CHARS,
    };
  }
  return {
    host: env.SUMMARIZER_HOST,
    port: env.SUMMARIZER_PORT,
    opsPort: env.SUMMARIZER_OPS_PORT,
    provider,
    minChars: env.SUMMARIZER_MIN_CHARS,
    sectionMinChars: env.SUMMARIZER_SECTION_MIN_CHARS,
    maxTextChars: env.SUMMARIZER_MAX_TEXT_CHARS,
    /** Most milliseconds one text's summary, outline or node summaries may take in a worker thread. */
    textBudgetMs: env.SUMMARIZER_TEXT_BUDGET_MS,
    /** Worker threads for the work on caller text. */
    textWorkers: env.SUMMARIZER_TEXT_WORKERS,
    /** Settings of the LLM provider; undefined for the built-in one. */
    http,
    logLevel: env.LOG_LEVEL,
  };
});

export type SummarizerConfig = z.infer<typeof summarizerEnvSchema>;

/** The summarizer's settings from the environment (see docs/summarizer.md). Pure; throws listing every bad variable. */
export function loadSummarizerConfig(env: NodeJS.ProcessEnv): SummarizerConfig {
  return loadConfig(summarizerEnvSchema, env);
}
