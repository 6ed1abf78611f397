import { z } from "zod";
import {
  commonEnvSchema,
  envBoolean,
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
import { builtinEmbeddingModel, builtinEmbeddingModelIds } from "./builtin-embedding-provider.js";

/** Embedding providers this build knows. */
export const embedderProviders = ["builtin", "openai", "ollama", "voyage"] as const;

export type EmbedderProviderName = (typeof embedderProviders)[number];

/** Default base URL and key policy of each HTTP provider (see docs/providers.md). */
export const embedderProviderRequirements: Record<
  Exclude<EmbedderProviderName, "builtin">,
  HttpProviderRequirements
> = {
  openai: { defaultBaseUrl: "https://api.openai.com", apiKey: "with-default-base-url" },
  ollama: { defaultBaseUrl: "http://127.0.0.1:11434", apiKey: "never" },
  voyage: { defaultBaseUrl: "https://api.voyageai.com", apiKey: "with-default-base-url" },
};

/** Every variable the embedder reads: docs/configuration.md is generated from these. */
export const embedderEnvVariables = z.object({
  ...commonEnvSchema,
  EMBEDDER_HOST: envString("127.0.0.1").describe("Address to bind (the Helm chart sets `0.0.0.0`)"),
  EMBEDDER_PORT: envInteger(50052, 0, 65535).describe("gRPC port; 0 picks a free one"),
  EMBEDDER_OPS_PORT: envInteger(9092, -1, 65535).describe(
    "`/metrics`, `/healthz`, `/readyz`; 0 picks a free one, -1 disables",
  ),
  EMBEDDER_PROVIDER: envEnum(embedderProviders, "builtin").describe(
    "`builtin` (no network), `openai` (OpenAI-compatible `/v1/embeddings`), `ollama` (`/api/embed`) or `voyage`; see [providers.md](providers.md)",
  ),
  EMBEDDER_BUILTIN_MODEL: envEnum(builtinEmbeddingModelIds, builtinEmbeddingModel).describe(
    "`builtin` only: which built-in model embeds. `builtin-glove-256d-v3` (default) keeps each word's exact form in dimensions of its own; `builtin-glove-100d-v2` is the previous model, for a store whose vectors have not been moved with `context-hub reembed` yet. See [embedder.md](embedder.md)",
  ),
  EMBEDDER_CACHE_DIR: envOptionalString().describe("Where the word-vector cache file is written and read"),
  EMBEDDER_CHUNK_SIZE: envInteger(1500, 100, 1_000_000).describe(
    "Largest chunk, in characters (UTF-16 code units); 100 – 1 000 000",
  ),
  EMBEDDER_CHUNK_OVERLAP: envInteger(200, 0, 500_000).describe(
    "How far a chunk reaches back into the previous one; at most half of the chunk size",
  ),
  EMBEDDER_MAX_TEXT_CHARS: envInteger(1_000_000, 1, 100_000_000).describe(
    "Longest text accepted by `EmbedDocuments` and `EmbedQueries`",
  ),
  EMBEDDER_TEXT_BUDGET_MS: envInteger(1500, 10, 600_000).describe(
    "Most time one call's chunking, or its built-in embedding, may take in a worker thread (10–600000); past it the worker is terminated and the call fails with `TEXT_BUDGET_EXCEEDED` naming the stage (`chunk`, `embed`); an embedding whose pace says it cannot finish within it is refused as soon as that is clear. Calls whose texts total at most 4096 characters (search queries) are worked on at once, without a worker. See [reliability.md](reliability.md#work-on-caller-text)",
  ),
  EMBEDDER_TEXT_WORKERS: envInteger(1, 1, 64).describe(
    "Worker threads for that work (1–64); with the built-in provider each holds its own copy of the word vectors (about 145 MB)",
  ),
  EMBEDDER_BASE_URL: envString("").describe("HTTP providers only: where the API is (path prefix and query kept)"),
  EMBEDDER_API_KEY: envString("").describe(
    "HTTP providers only: sent as `Authorization: Bearer`; required for `openai` and `voyage` at their default base URL; never logged",
  ),
  EMBEDDER_MODEL: envString("").describe("Model id sent to the API and recorded with every vector"),
  // Unset (0) means "learn it from the provider at warm-up"; an explicit value must be positive.
  EMBEDDER_DIMENSION: envInteger(0, 1, 65_536).describe(
    "The model's vector dimension. **Set:** the provider is ready at start and every vector is checked against it. **Unset:** the dimension is learned by one probe request (one short text) at warm-up; `/readyz` answers 503 and `Describe` reports dimension 0 until it succeeds. A failed probe does not stop the process: it is logged, tried again in the background (after 5 s, doubling to 1 min) and by the next call, which waits for it.",
  ),
  EMBEDDER_SEND_DIMENSION: envBoolean(false).describe(
    "Also ask the API for `EMBEDDER_DIMENSION` (OpenAI `dimensions`, Voyage `output_dimension`, Ollama `dimensions`), for models that can shorten their vectors (text-embedding-3-*, voyage-3-large, voyage-3.5…). Needs `EMBEDDER_DIMENSION`. Leave off for models that refuse the field (text-embedding-ada-002, most self-hosted models).",
  ),
  EMBEDDER_TIMEOUT_MS: envInteger(20_000, 100, 600_000).describe(
    "Time budget of one HTTP request, its retries and waits included",
  ),
  EMBEDDER_MAX_RETRIES: envInteger(2, 0, 10).describe("Extra attempts on 429, 5xx and network errors"),
  EMBEDDER_BATCH_SIZE: envInteger(128, 1, 2048).describe(
    "Most inputs per request; 1 – 2048 (OpenAI allows 2048, Voyage 1000; mind the per-request token limits of the model)",
  ),
  EMBEDDER_CONCURRENCY: envInteger(4, 1, 64).describe(
    "Most requests in flight per `EmbedDocuments`/`EmbedQueries` call",
  ),
  XDG_CACHE_HOME: envOptionalString().describe("Base of the default cache directory: `$XDG_CACHE_HOME/context-hub`."),
  HOME: envOptionalString().describe(
    "Without XDG_CACHE_HOME the default cache directory is `$HOME/.cache/context-hub` (the OS home directory when unset).",
  ),
});

const embedderEnvSchema = embedderEnvVariables
  .superRefine((env, context) => {
    if (env.EMBEDDER_CHUNK_OVERLAP > Math.floor(env.EMBEDDER_CHUNK_SIZE / 2)) {
      context.addIssue({
        code: "custom",
        path: ["EMBEDDER_CHUNK_OVERLAP"],
        message: `must be at most half of EMBEDDER_CHUNK_SIZE (${Math.floor(env.EMBEDDER_CHUNK_SIZE / 2)})`,
      });
    }
    if (env.EMBEDDER_SEND_DIMENSION && env.EMBEDDER_DIMENSION === 0) {
      context.addIssue({
        code: "custom",
        path: ["EMBEDDER_SEND_DIMENSION"],
        message: "needs EMBEDDER_DIMENSION, the dimension to ask for",
      });
    }
  })
  .transform((env, context) => {
    const provider = env.EMBEDDER_PROVIDER;
    let http: EmbedderHttpSettings | undefined;
    if (provider !== "builtin") {
      const shared = resolveHttpProviderSettings(
        "EMBEDDER",
        provider,
        {
          baseUrl: env.EMBEDDER_BASE_URL,
          apiKey: env.EMBEDDER_API_KEY,
          model: env.EMBEDDER_MODEL,
          timeoutMs: env.EMBEDDER_TIMEOUT_MS,
          maxRetries: env.EMBEDDER_MAX_RETRIES,
        },
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
      /** The built-in model (`EMBEDDER_BUILTIN_MODEL`); used only with the built-in provider. */
      builtinModel: env.EMBEDDER_BUILTIN_MODEL,
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
