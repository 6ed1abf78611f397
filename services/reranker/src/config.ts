import { z } from "zod";
import { commonEnvSchema, envEnum, envInteger, envString, loadConfig, resolveHttpProviderSettings, type HttpProviderRequirements, type Secret } from "@context-hub/common";
import { toDefaultCacheDir } from "@context-hub/text";

/** Rerank providers this build knows. */
export const rerankerProviders = ["builtin", "cohere", "voyage", "tei"] as const;

export type RerankerProviderName = (typeof rerankerProviders)[number];

/** Default base URL, key policy and batch size of each HTTP provider (see docs/providers.md). */
export const rerankerProviderRequirements: Record<Exclude<RerankerProviderName, "builtin">, HttpProviderRequirements & { defaultBatchSize: number }> = {
  // Cohere documents at most 1000 documents per rerank request.
  cohere: { defaultBaseUrl: "https://api.cohere.com", apiKey: "with-default-base-url", defaultBatchSize: 1000 },
  // Voyage documents at most 1000 documents per rerank request.
  voyage: { defaultBaseUrl: "https://api.voyageai.com", apiKey: "with-default-base-url", defaultBatchSize: 1000 },
  // TEI refuses more texts than its --max-client-batch-size, 32 by default.
  tei: { apiKey: "never", defaultBatchSize: 32 },
};

/** Settings of an HTTP rerank provider. */
export interface RerankerHttpSettings {
  baseUrl: string;
  apiKey: Secret | undefined;
  model: string;
  timeoutMs: number;
  maxRetries: number;
  /** Most passages per HTTP request. */
  batchSize: number;
  /** Most HTTP requests in flight per rerank call. */
  concurrency: number;
}

const rerankerEnvSchema = z
  .object({
    ...commonEnvSchema,
    RERANKER_HOST: envString("127.0.0.1"),
    RERANKER_PORT: envInteger(50054, 0, 65535),
    RERANKER_OPS_PORT: envInteger(9094, -1, 65535),
    RERANKER_PROVIDER: envEnum(rerankerProviders, "builtin"),
    RERANKER_CACHE_DIR: z.string().optional(),
    RERANKER_MAX_PASSAGES: envInteger(1000, 1, 1_000_000),
    RERANKER_MAX_TEXT_CHARS: envInteger(1_000_000, 1, 100_000_000),
    RERANKER_BASE_URL: envString(""),
    RERANKER_API_KEY: envString(""),
    RERANKER_MODEL: envString(""),
    RERANKER_TIMEOUT_MS: envInteger(10_000, 100, 600_000),
    RERANKER_MAX_RETRIES: envInteger(2, 0, 10),
    // Unset (0) means the provider's default; an explicit value must be positive.
    RERANKER_BATCH_SIZE: envInteger(0, 1, 10_000),
    RERANKER_CONCURRENCY: envInteger(4, 1, 64),
    XDG_CACHE_HOME: z.string().optional(),
    HOME: z.string().optional(),
  })
  .transform((env, context) => {
    const provider = env.RERANKER_PROVIDER;
    let http: RerankerHttpSettings | undefined;
    if (provider !== "builtin") {
      const requirements = rerankerProviderRequirements[provider];
      const shared = resolveHttpProviderSettings(
        "RERANKER",
        provider,
        { baseUrl: env.RERANKER_BASE_URL, apiKey: env.RERANKER_API_KEY, model: env.RERANKER_MODEL, timeoutMs: env.RERANKER_TIMEOUT_MS, maxRetries: env.RERANKER_MAX_RETRIES },
        requirements,
        (variable, message) => context.addIssue({ code: "custom", path: [variable], message }),
      );
      if (shared === undefined) return z.NEVER;
      http = { ...shared, batchSize: env.RERANKER_BATCH_SIZE || requirements.defaultBatchSize, concurrency: env.RERANKER_CONCURRENCY };
    }
    return {
      host: env.RERANKER_HOST,
      port: env.RERANKER_PORT,
      opsPort: env.RERANKER_OPS_PORT,
      provider,
      cacheDir: env.RERANKER_CACHE_DIR || toDefaultCacheDir({ XDG_CACHE_HOME: env.XDG_CACHE_HOME, HOME: env.HOME }),
      maxPassages: env.RERANKER_MAX_PASSAGES,
      maxTextChars: env.RERANKER_MAX_TEXT_CHARS,
      /** Settings of the HTTP provider; undefined for the built-in one. */
      http,
      logLevel: env.LOG_LEVEL,
    };
  });

export type RerankerConfig = z.infer<typeof rerankerEnvSchema>;

/** The reranker's settings from the environment (see docs/reranker.md). Pure; throws listing every bad variable. */
export function loadRerankerConfig(env: NodeJS.ProcessEnv): RerankerConfig {
  return loadConfig(rerankerEnvSchema, env);
}
