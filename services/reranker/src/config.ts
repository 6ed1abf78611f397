import { z } from "zod";
import { commonEnvSchema, envEnum, envInteger, envString, loadConfig } from "@context-hub/common";
import { toDefaultCacheDir } from "@context-hub/text";

/** Rerank providers this build knows. */
export const rerankerProviders = ["builtin"] as const;

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
    XDG_CACHE_HOME: z.string().optional(),
    HOME: z.string().optional(),
  })
  .transform((env) => ({
    host: env.RERANKER_HOST,
    port: env.RERANKER_PORT,
    opsPort: env.RERANKER_OPS_PORT,
    provider: env.RERANKER_PROVIDER,
    cacheDir: env.RERANKER_CACHE_DIR || toDefaultCacheDir({ XDG_CACHE_HOME: env.XDG_CACHE_HOME, HOME: env.HOME }),
    maxPassages: env.RERANKER_MAX_PASSAGES,
    maxTextChars: env.RERANKER_MAX_TEXT_CHARS,
    logLevel: env.LOG_LEVEL,
  }));

export type RerankerConfig = z.infer<typeof rerankerEnvSchema>;

/** The reranker's settings from the environment (see docs/reranker.md). Pure; throws listing every bad variable. */
export function loadRerankerConfig(env: NodeJS.ProcessEnv): RerankerConfig {
  return loadConfig(rerankerEnvSchema, env);
}
