import { z } from "zod";
import {
  commonEnvSchema,
  envEnum,
  envInteger,
  envOptionalString,
  envString,
  loadConfig,
  resolveHttpProviderSettings,
  type HttpProviderRequirements,
  type Secret,
} from "@context-hub/common";
import { toDefaultCacheDir } from "@context-hub/text";

/** Rerank providers this build knows. */
export const rerankerProviders = ["builtin", "cohere", "voyage", "tei"] as const;

export type RerankerProviderName = (typeof rerankerProviders)[number];

/** Default base URL, key policy and batch size of each HTTP provider (see docs/providers.md). */
export const rerankerProviderRequirements: Record<
  Exclude<RerankerProviderName, "builtin">,
  HttpProviderRequirements & { defaultBatchSize: number }
> = {
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

/** Every variable the reranker reads: docs/configuration.md is generated from these. */
export const rerankerEnvVariables = z.object({
  ...commonEnvSchema,
  RERANKER_HOST: envString("127.0.0.1").describe("Address to bind (the Helm chart sets `0.0.0.0`)"),
  RERANKER_PORT: envInteger(50054, 0, 65535).describe("gRPC port; 0 picks a free one"),
  RERANKER_OPS_PORT: envInteger(9094, -1, 65535).describe(
    "`/metrics`, `/healthz`, `/readyz`; 0 picks a free one, -1 disables",
  ),
  RERANKER_PROVIDER: envEnum(rerankerProviders, "builtin").describe(
    "`builtin` (no network), `cohere` (Cohere-compatible `/v1/rerank`: Cohere, Jina, vLLM), `voyage` (Voyage AI `/v1/rerank`) or `tei` (text-embeddings-inference `/rerank`); see [providers.md](providers.md)",
  ),
  RERANKER_CACHE_DIR: envOptionalString().describe("Word-vector cache (share it with the embedder's)"),
  RERANKER_MAX_PASSAGES: envInteger(1000, 1, 1_000_000).describe("Most passages per call"),
  RERANKER_MAX_TEXT_CHARS: envInteger(1_000_000, 1, 100_000_000).describe("Longest query or passage accepted"),
  RERANKER_BASE_URL: envString("").describe("HTTP providers only: where the API is (path prefix and query kept)"),
  RERANKER_API_KEY: envString("").describe(
    "HTTP providers only: sent as `Authorization: Bearer`; required for `cohere` and `voyage` at their default address (any path under it); never logged",
  ),
  RERANKER_MODEL: envString("").describe(
    "Model id sent to the API (`cohere`, `voyage`); for `tei` it only names the served model in `Describe`, logs and errors",
  ),
  RERANKER_TIMEOUT_MS: envInteger(10_000, 100, 600_000).describe(
    "Time budget of one HTTP request, its retries and waits included",
  ),
  RERANKER_MAX_RETRIES: envInteger(2, 0, 10).describe("Extra attempts on 429, 5xx and network errors"),
  // Unset (0) means the provider's default; an explicit value must be positive.
  RERANKER_BATCH_SIZE: envInteger(0, 1, 10_000).describe(
    "Most passages per HTTP request; larger calls are split. Unset: the provider's own limit (Cohere and Voyage 1000, TEI 32).",
  ),
  RERANKER_CONCURRENCY: envInteger(4, 1, 64).describe("Most HTTP requests in flight per call"),
  XDG_CACHE_HOME: envOptionalString().describe("Base of the default cache directory: `$XDG_CACHE_HOME/context-hub`."),
  HOME: envOptionalString().describe(
    "Without XDG_CACHE_HOME the default cache directory is `$HOME/.cache/context-hub` (the OS home directory when unset).",
  ),
});

const rerankerEnvSchema = rerankerEnvVariables.transform((env, context) => {
  const provider = env.RERANKER_PROVIDER;
  let http: RerankerHttpSettings | undefined;
  if (provider !== "builtin") {
    const requirements = rerankerProviderRequirements[provider];
    const shared = resolveHttpProviderSettings(
      "RERANKER",
      provider,
      {
        baseUrl: env.RERANKER_BASE_URL,
        apiKey: env.RERANKER_API_KEY,
        model: env.RERANKER_MODEL,
        timeoutMs: env.RERANKER_TIMEOUT_MS,
        maxRetries: env.RERANKER_MAX_RETRIES,
      },
      requirements,
      (variable, message) => context.addIssue({ code: "custom", path: [variable], message }),
    );
    if (shared === undefined) return z.NEVER;
    http = {
      ...shared,
      batchSize: env.RERANKER_BATCH_SIZE || requirements.defaultBatchSize,
      concurrency: env.RERANKER_CONCURRENCY,
    };
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
