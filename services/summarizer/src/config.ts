import { z } from "zod";
import { commonEnvSchema, envEnum, envInteger, envString, loadConfig, resolveHttpProviderSettings, type HttpProviderRequirements, type Secret } from "@context-hub/common";

/** Summary providers this build knows. */
export const summarizerProviders = ["builtin", "openai", "anthropic", "ollama"] as const;

export type SummarizerProviderName = (typeof summarizerProviders)[number];

/** Default base URL and key policy of each HTTP provider (see docs/providers.md). */
export const summarizerProviderRequirements: Record<Exclude<SummarizerProviderName, "builtin">, HttpProviderRequirements> = {
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

const summarizerEnvSchema = z
  .object({
    ...commonEnvSchema,
    SUMMARIZER_HOST: envString("127.0.0.1"),
    SUMMARIZER_PORT: envInteger(50053, 0, 65535),
    SUMMARIZER_OPS_PORT: envInteger(9093, -1, 65535),
    SUMMARIZER_PROVIDER: envEnum(summarizerProviders, "builtin"),
    SUMMARIZER_MIN_CHARS: envInteger(500, 0, 10_000_000),
    SUMMARIZER_SECTION_MIN_CHARS: envInteger(400, 0, 10_000_000),
    SUMMARIZER_MAX_TEXT_CHARS: envInteger(1_000_000, 1, 100_000_000),
    SUMMARIZER_TEXT_BUDGET_MS: envInteger(3000, 10, 600_000),
    SUMMARIZER_TEXT_WORKERS: envInteger(1, 1, 64),
    SUMMARIZER_BASE_URL: envString(""),
    SUMMARIZER_API_KEY: envString(""),
    SUMMARIZER_MODEL: envString(""),
    SUMMARIZER_TIMEOUT_MS: envInteger(25_000, 100, 600_000),
    SUMMARIZER_MAX_RETRIES: envInteger(2, 0, 10),
    SUMMARIZER_MAX_TOKENS: envInteger(1024, 16, 200_000),
    SUMMARIZER_CONCURRENCY: envInteger(16, 1, 256),
    SUMMARIZER_MAX_INPUT_CHARS: envInteger(100_000, 1000, 10_000_000),
  })
  .transform((env, context) => {
    const provider = env.SUMMARIZER_PROVIDER;
    let http: SummarizerHttpSettings | undefined;
    if (provider !== "builtin") {
      const shared = resolveHttpProviderSettings(
        "SUMMARIZER",
        provider,
        { baseUrl: env.SUMMARIZER_BASE_URL, apiKey: env.SUMMARIZER_API_KEY, model: env.SUMMARIZER_MODEL, timeoutMs: env.SUMMARIZER_TIMEOUT_MS, maxRetries: env.SUMMARIZER_MAX_RETRIES },
        summarizerProviderRequirements[provider],
        (variable, message) => context.addIssue({ code: "custom", path: [variable], message }),
      );
      if (shared === undefined) return z.NEVER;
      http = { ...shared, maxTokens: env.SUMMARIZER_MAX_TOKENS, concurrency: env.SUMMARIZER_CONCURRENCY, maxInputChars: env.SUMMARIZER_MAX_INPUT_CHARS };
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
