import { z } from "zod";

/**
 * Parses environment variables with a zod schema. Pure: reads only `env`.
 * Reports every bad variable at once and returns a deeply frozen result.
 */
export function loadConfig<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv): z.infer<S> {
  const result = schema.safeParse(env);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => {
      const name = issue.path.join(".") || "(environment)";
      return `  ${name}: ${issue.message}`;
    });
    throw new Error(`Invalid configuration:\n${problems.join("\n")}`);
  }
  return deepFreeze(result.data);
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

/** An environment boolean: true/false/1/0/yes/no, case-insensitive. */
export function envBoolean(defaultValue: boolean) {
  return z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined || raw.trim() === "") return defaultValue;
      const value = raw.trim().toLowerCase();
      if (["1", "true", "yes", "on"].includes(value)) return true;
      if (["0", "false", "no", "off"].includes(value)) return false;
      ctx.addIssue({ code: "custom", message: `expected true or false, got "${raw}"` });
      return z.NEVER;
    });
}

/** An environment integer within [min, max]. */
export function envInteger(defaultValue: number, min = 0, max = Number.MAX_SAFE_INTEGER) {
  return z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined || raw.trim() === "") return defaultValue;
      const value = Number(raw);
      if (!Number.isInteger(value) || value < min || value > max) {
        ctx.addIssue({ code: "custom", message: `expected an integer from ${min} to ${max}, got "${raw}"` });
        return z.NEVER;
      }
      return value;
    });
}

/** An environment string with a default. */
export function envString(defaultValue: string) {
  return z
    .string()
    .optional()
    .transform((raw) => (raw === undefined || raw === "" ? defaultValue : raw));
}

/** One of a fixed set of strings. */
export function envEnum<const T extends readonly [string, ...string[]]>(values: T, defaultValue: T[number]) {
  return z
    .string()
    .optional()
    .transform((raw, ctx): T[number] => {
      if (raw === undefined || raw === "") return defaultValue;
      if ((values as readonly string[]).includes(raw)) return raw;
      ctx.addIssue({ code: "custom", message: `expected one of ${values.join(", ")}, got "${raw}"` });
      return z.NEVER;
    });
}

/** Settings every service shares: where its ops endpoint listens and how it logs. */
export const commonEnvSchema = {
  LOG_LEVEL: envEnum(["trace", "debug", "info", "warn", "error", "fatal", "silent"] as const, "info"),
};
