import { z } from "zod";
import { commonEnvSchema, envEnum, envInteger, envString, loadConfig } from "@context-hub/common";
import { toDefaultCacheDir } from "@context-hub/text";

/** Embedding providers this build knows. */
export const embedderProviders = ["builtin"] as const;

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
    XDG_CACHE_HOME: z.string().optional(),
    HOME: z.string().optional(),
  })
  .superRefine((env, context) => {
    if (env.EMBEDDER_CHUNK_OVERLAP > Math.floor(env.EMBEDDER_CHUNK_SIZE / 2)) {
      context.addIssue({ code: "custom", path: ["EMBEDDER_CHUNK_OVERLAP"], message: `must be at most half of EMBEDDER_CHUNK_SIZE (${Math.floor(env.EMBEDDER_CHUNK_SIZE / 2)})` });
    }
  })
  .transform((env) => ({
    host: env.EMBEDDER_HOST,
    port: env.EMBEDDER_PORT,
    opsPort: env.EMBEDDER_OPS_PORT,
    provider: env.EMBEDDER_PROVIDER,
    cacheDir: env.EMBEDDER_CACHE_DIR || toDefaultCacheDir({ XDG_CACHE_HOME: env.XDG_CACHE_HOME, HOME: env.HOME }),
    chunkSize: env.EMBEDDER_CHUNK_SIZE,
    chunkOverlap: env.EMBEDDER_CHUNK_OVERLAP,
    maxTextChars: env.EMBEDDER_MAX_TEXT_CHARS,
    logLevel: env.LOG_LEVEL,
  }));

export type EmbedderConfig = z.infer<typeof embedderEnvSchema>;

/** The embedder's settings from the environment (see docs/embedder.md). Pure; throws listing every bad variable. */
export function loadEmbedderConfig(env: NodeJS.ProcessEnv): EmbedderConfig {
  return loadConfig(embedderEnvSchema, env);
}
