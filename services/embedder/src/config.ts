import { z } from "zod";
import { commonEnvSchema, envBoolean, envEnum, envInteger, envString, loadConfig, resolveHttpProviderSettings, type HttpProviderRequirements, type Secret } from "@context-hub/common";
import { toDefaultCacheDir } from "@context-hub/text";

/** Embedding providers this build knows. */
export const embedderProviders = ["builtin", "openai", "ollama", "voyage"] as const;

export type EmbedderProviderName = (typeof embedderProviders)[number];

/** Default base URL and key policy of each HTTP provider (see docs/providers.md). */
export const embedderProviderRequirements: Record<Exclude<EmbedderProviderName, "builtin">, HttpProviderRequirements> = {
  openai: { defaultBaseUrl: "https://api.openai.com", apiKey: "with-default-base-url" },
  ollama: { defaultBaseUrl: "http://127.0.0.1:11434", apiKey: "never" },
  voyage: { defaultBaseUrl: "https://api.voyageai.com", apiKey: "with-default-base-url" },
};

const embedderEnvSchema = z
  .object({
    ...commonEnvSchema,
    EMBEDDER_HOST: envString("127.0.0.1"),
    EMBEDDER_PORT: envInteger(50052, 0, 65535),
    EMBEDDER_OPS_PORT: envInteger(9092, -1, 65535),
    EMBEDDER_PROVIDER: envEnum(embedderProviders, "builtin"),
    EMBEDDER_CACHE_DIR: z.string().optional(),
    EMBEDDER_CHUNK_SIZE: envInteger(1500, 100, 1_000_000),
    EMBEDDER_CHUNK_OVERLAP: envInteger(200, 0, 500_000),
    EMBEDDER_MAX_TEXT_CHARS: envInteger(1_000_000, 1, 100_000_000),
    EMBEDDER_TEXT_BUDGET_MS: envInteger(3000, 10, 600_000),
    EMBEDDER_TEXT_WORKERS: envInteger(1, 1, 64),
    EMBEDDER_BASE_URL: envString(""),
    EMBEDDER_API_KEY: envString(""),
    EMBEDDER_MODEL: envString(""),
    // Unset (0) means "learn it from the provider at warm-up"; an explicit value must be positive.
    EMBEDDER_DIMENSION: envInteger(0, 1, 65_536),
    EMBEDDER_SEND_DIMENSION: envBoolean(false),
    EMBEDDER_TIMEOUT_MS: envInteger(20_000, 100, 600_000),
    EMBEDDER_MAX_RETRIES: envInteger(2, 0, 10),
    EMBEDDER_BATCH_SIZE: envInteger(128, 1, 2048),
    EMBEDDER_CONCURRENCY: envInteger(4, 1, 64),
    XDG_CACHE_HOME: z.string().optional(),
    HOME: z.string().optional(),
  })
  .superRefine((env, context) => {
    if (env.EMBEDDER_CHUNK_OVERLAP > Math.floor(env.EMBEDDER_CHUNK_SIZE / 2)) {
      context.addIssue({ code: "custom", path: ["EMBEDDER_CHUNK_OVERLAP"], message: `must be at most half of EMBEDDER_CHUNK_SIZE (${Math.floor(env.EMBEDDER_CHUNK_SIZE / 2)})` });
    }
    if (env.EMBEDDER_SEND_DIMENSION && env.EMBEDDER_DIMENSION === 0) {
      context.addIssue({ code: "custom", path: ["EMBEDDER_SEND_DIMENSION"], message: "needs EMBEDDER_DIMENSION, the dimension to ask for" });
    }
  })
  .transform((env, context) => {
    const provider = env.EMBEDDER_PROVIDER;
    let http: EmbedderHttpSettings | undefined;
    if (provider !== "builtin") {
      const shared = resolveHttpProviderSettings(
        "EMBEDDER",
        provider,
        { baseUrl: env.EMBEDDER_BASE_URL, apiKey: env.EMBEDDER_API_KEY, model: env.EMBEDDER_MODEL, timeoutMs: env.EMBEDDER_TIMEOUT_MS, maxRetries: env.EMBEDDER_MAX_RETRIES },
        embedderProviderRequirements[provider],
        (variable, message) => context.addIssue({ code: "custom", path: [variable], message }),
      );
      if (shared === undefined) return z.NEVER;
      http = {
        ...shared,
        dimension: env.EMBEDDER_DIMENSION === 0 ? undefined : env.EMBEDDER_DIMENSION,
        sendDimension: env.EMBEDDER_SEND_DIMENSION,
        batchSize: env.EMBEDDER_BATCH_SIZE,
        concurrency: env.EMBEDDER_CONCURRENCY,
      };
    }
    return {
      host: env.EMBEDDER_HOST,
      port: env.EMBEDDER_PORT,
      opsPort: env.EMBEDDER_OPS_PORT,
      provider,
      cacheDir: env.EMBEDDER_CACHE_DIR || toDefaultCacheDir({ XDG_CACHE_HOME: env.XDG_CACHE_HOME, HOME: env.HOME }),
      chunkSize: env.EMBEDDER_CHUNK_SIZE,
      chunkOverlap: env.EMBEDDER_CHUNK_OVERLAP,
      maxTextChars: env.EMBEDDER_MAX_TEXT_CHARS,
      /** Most milliseconds one call's chunking, or built-in embedding, may take in a worker thread. */
      textBudgetMs: env.EMBEDDER_TEXT_BUDGET_MS,
      /** Worker threads for the work on long texts. */
      textWorkers: env.EMBEDDER_TEXT_WORKERS,
      /** Settings of the HTTP provider; undefined for the built-in one. */
      http,
      logLevel: env.LOG_LEVEL,
    };
  });

/** Settings of an HTTP embedding provider. */
export interface EmbedderHttpSettings {
  baseUrl: string;
  apiKey: Secret | undefined;
  model: string;
  timeoutMs: number;
  maxRetries: number;
  /** The model's dimension; undefined means it is learned by a probe request at warm-up. */
  dimension: number | undefined;
  /** Ask the API for `dimension` (OpenAI `dimensions`, Voyage `output_dimension`, Ollama `dimensions`). */
  sendDimension: boolean;
  /** Most texts per HTTP request. */
  batchSize: number;
  /** Most HTTP requests in flight per embed call. */
  concurrency: number;
}

export type EmbedderConfig = z.infer<typeof embedderEnvSchema>;

/** The embedder's settings from the environment (see docs/embedder.md). Pure; throws listing every bad variable. */
export function loadEmbedderConfig(env: NodeJS.ProcessEnv): EmbedderConfig {
  return loadConfig(embedderEnvSchema, env);
}
