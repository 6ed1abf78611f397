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

/**
 * What the configuration reference (docs/configuration.md) shows of a
 * variable beside its `.describe()` text: its type and its default, as the
 * env helpers below record them. `envDefault` undefined: unset by default.
 */
export interface EnvVariableMeta {
  envType: string;
  envDefault?: string | undefined;
}

/**
 * The raw variable: an optional string carrying its type and default. The
 * helpers parse it with a transform; the record sits on this inner schema so
 * that it survives the `.refine()` and `.describe()` clones a config adds.
 */
export function envVariable(meta: EnvVariableMeta) {
  return z
    .string()
    .optional()
    .meta({ ...meta });
}

/** An environment boolean: true/false/1/0/yes/no, case-insensitive. */
export function envBoolean(defaultValue: boolean) {
  return envVariable({ envType: "boolean", envDefault: String(defaultValue) }).transform((raw, ctx) => {
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
  return envVariable({ envType: integerType(min, max), envDefault: String(defaultValue) }).transform((raw, ctx) => {
    if (raw === undefined || raw.trim() === "") return defaultValue;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      ctx.addIssue({ code: "custom", message: `expected an integer from ${min} to ${max}, got "${raw}"` });
      return z.NEVER;
    }
    return value;
  });
}

/** An environment decimal within [min, max], written as digits with an optional fraction (`0.75`, not `.75` or `1e1`). */
export function envDecimal(defaultValue: number, min: number, max: number) {
  return envVariable({ envType: `decimal ${min}–${max}`, envDefault: String(defaultValue) }).transform((raw, ctx) => {
    if (raw === undefined || raw.trim() === "") return defaultValue;
    const value = Number(raw.trim());
    if (!/^[0-9]+(\.[0-9]+)?$/.test(raw.trim()) || value < min || value > max) {
      ctx.addIssue({ code: "custom", message: `expected a number from ${min} to ${max}, got "${raw}"` });
      return z.NEVER;
    }
    return value;
  });
}

/** An environment string with a default. */
export function envString(defaultValue: string) {
  return envVariable({ envType: "string", envDefault: defaultValue }).transform((raw) =>
    raw === undefined || raw === "" ? defaultValue : raw,
  );
}

/** One of a fixed set of strings. */
export function envEnum<const T extends readonly [string, ...string[]]>(values: T, defaultValue: T[number]) {
  return envVariable({ envType: values.join(" | "), envDefault: defaultValue }).transform((raw, ctx): T[number] => {
    if (raw === undefined || raw === "") return defaultValue;
    if ((values as readonly string[]).includes(raw)) return raw;
    ctx.addIssue({ code: "custom", message: `expected one of ${values.join(", ")}, got "${raw}"` });
    return z.NEVER;
  });
}

/** An optional environment string: undefined when unset, so the code decides what that means. */
export function envOptionalString() {
  return envVariable({ envType: "string" }).transform((raw) => (raw === undefined || raw === "" ? undefined : raw));
}

/** An optional environment integer within [min, max]: undefined when unset, so the default can depend on other settings. */
export function envOptionalInteger(min: number, max: number) {
  return envVariable({ envType: integerType(min, max) }).transform((raw, ctx) => {
    if (raw === undefined || raw.trim() === "") return undefined;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      ctx.addIssue({ code: "custom", message: `expected an integer from ${min} to ${max}, got "${raw}"` });
      return z.NEVER;
    }
    return value;
  });
}

function integerType(min: number, max: number): string {
  return max === Number.MAX_SAFE_INTEGER ? `integer ≥ ${min}` : `integer ${min}–${max}`;
}

/** Settings every service shares: how it logs. */
export const commonEnvSchema = {
  LOG_LEVEL: envEnum(["trace", "debug", "info", "warn", "error", "fatal", "silent"] as const, "info").describe(
    "Least severe level of the JSON log lines written to stdout.",
  ),
};

/** One row of the configuration reference. */
export interface EnvVariableInfo {
  name: string;
  type: string;
  /** Undefined: unset by default. */
  default: string | undefined;
  description: string;
}

function metaOf(schema: z.core.$ZodType): EnvVariableMeta | undefined {
  const own = z.globalRegistry.get(schema as z.ZodType) as Partial<EnvVariableMeta> | undefined;
  if (typeof own?.envType === "string") return { envType: own.envType, envDefault: own.envDefault };
  const def = schema._zod.def as { type: string; in?: z.core.$ZodType; out?: z.core.$ZodType };
  if (def.type === "pipe") return (def.in && metaOf(def.in)) ?? (def.out && metaOf(def.out));
  return undefined;
}

/**
 * Type, default and description of every variable of an env schema's shape,
 * in the shape's order: what docs/configuration.md is generated from. Throws
 * naming every variable that was not built with an env helper or has no
 * `.describe()` text, so the reference cannot silently miss one.
 */
export function describeEnvironment(shape: Readonly<Record<string, z.core.$ZodType>>): EnvVariableInfo[] {
  const problems: string[] = [];
  const rows = Object.entries(shape).map(([name, schema]) => {
    const meta = metaOf(schema);
    const description = (z.globalRegistry.get(schema as z.ZodType) as { description?: string } | undefined)
      ?.description;
    if (meta === undefined)
      problems.push(
        `${name}: not built with an env helper (envString, envInteger, …), so its type and default are unknown`,
      );
    if (description === undefined || description.trim() === "") problems.push(`${name}: no .describe() text`);
    return { name, type: meta?.envType ?? "", default: meta?.envDefault, description: description ?? "" };
  });
  if (problems.length > 0) throw new Error(`Undocumented environment variables:\n  ${problems.join("\n  ")}`);
  return rows;
}
