import { z } from "zod";
import { commonEnvSchema, envEnum, envInteger, envString, loadConfig } from "@context-hub/common";

/** Summary providers this build knows. */
export const summarizerProviders = ["builtin"] as const;

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
  })
  .transform((env) => ({
    host: env.SUMMARIZER_HOST,
    port: env.SUMMARIZER_PORT,
    opsPort: env.SUMMARIZER_OPS_PORT,
    provider: env.SUMMARIZER_PROVIDER,
    minChars: env.SUMMARIZER_MIN_CHARS,
    sectionMinChars: env.SUMMARIZER_SECTION_MIN_CHARS,
    maxTextChars: env.SUMMARIZER_MAX_TEXT_CHARS,
    logLevel: env.LOG_LEVEL,
  }));

export type SummarizerConfig = z.infer<typeof summarizerEnvSchema>;

/** The summarizer's settings from the environment (see docs/summarizer.md). Pure; throws listing every bad variable. */
export function loadSummarizerConfig(env: NodeJS.ProcessEnv): SummarizerConfig {
  return loadConfig(summarizerEnvSchema, env);
}
