import { inspect } from "node:util";

/**
 * A secret read from the environment (an API key). `reveal()` gives the
 * value to the one place that sends it; printing, logging, JSON and
 * util.inspect only ever show "[redacted]".
 */
export interface Secret {
  reveal(): string;
  toString(): string;
  toJSON(): string;
}

/** Wraps a secret value so it cannot leak through logs or error messages by accident. */
export function toSecret(value: string): Secret {
  return Object.freeze({
    reveal: () => value,
    toString: () => "[redacted]",
    toJSON: () => "[redacted]",
    [inspect.custom]: () => "[redacted]",
  });
}

/** The settings every HTTP provider shares, resolved and checked. */
export interface HttpProviderSettings {
  baseUrl: string;
  apiKey: Secret | undefined;
  model: string;
  timeoutMs: number;
  maxRetries: number;
}

/** What one provider needs beyond the shared settings. */
export interface HttpProviderRequirements {
  /** Base URL used when `<PREFIX>_BASE_URL` is empty; without one, the variable is required. */
  defaultBaseUrl?: string;
  /**
   * "with-default-base-url": a hosted API that refuses calls without a key,
   * so one is required whenever the base URL is at the default's scheme, host
   * and port (any path), and not when it points elsewhere (a proxy or a
   * self-hosted server);
   * "never": the key is optional and sent only when set.
   */
  apiKey: "with-default-base-url" | "never";
}

/** The shared settings as the environment gave them (strings as read; numbers already parsed). */
export interface RawHttpProviderSettings {
  baseUrl: string;
  apiKey: string;
  model: string;
  timeoutMs: number;
  maxRetries: number;
}

/**
 * Resolves and checks the shared settings of the HTTP provider `provider`
 * configured under `prefix` (e.g. "EMBEDDER"): applies the default base URL,
 * requires `<PREFIX>_MODEL`, a valid http(s) `<PREFIX>_BASE_URL` and, for a
 * hosted API at its default host (whatever the path), `<PREFIX>_API_KEY`. Each problem goes to
 * `report(variable, message)`, never with a secret in it; returns undefined
 * when there was one.
 */
export function resolveHttpProviderSettings(
  prefix: string,
  provider: string,
  raw: RawHttpProviderSettings,
  requirements: HttpProviderRequirements,
  report: (variable: string, message: string) => void,
): HttpProviderSettings | undefined {
  let ok = true;
  const problem = (variable: string, message: string) => {
    ok = false;
    report(variable, message);
  };
  const model = raw.model.trim();
  if (model === "") problem(`${prefix}_MODEL`, `required when ${prefix}_PROVIDER is ${provider}`);
  const baseUrl = raw.baseUrl.trim() === "" ? requirements.defaultBaseUrl : raw.baseUrl.trim();
  if (baseUrl === undefined) {
    problem(`${prefix}_BASE_URL`, `required when ${prefix}_PROVIDER is ${provider}`);
  } else if (!isHttpUrl(baseUrl)) {
    // The value itself is not echoed: a URL may carry credentials.
    problem(`${prefix}_BASE_URL`, "expected an http:// or https:// URL");
  }
  const apiKey = raw.apiKey.trim();
  if (
    apiKey === "" &&
    requirements.apiKey === "with-default-base-url" &&
    isSameOrigin(baseUrl, requirements.defaultBaseUrl)
  ) {
    problem(`${prefix}_API_KEY`, `required when ${prefix}_PROVIDER is ${provider} at ${requirements.defaultBaseUrl}`);
  }
  if (!ok || baseUrl === undefined) return undefined;
  return {
    baseUrl,
    apiKey: apiKey === "" ? undefined : toSecret(apiKey),
    model,
    timeoutMs: raw.timeoutMs,
    maxRetries: raw.maxRetries,
  };
}

/** Whether both URLs name the same scheme, host and port, whatever their paths ("https://api.openai.com/v1" is still OpenAI's API). */
function isSameOrigin(value: string | undefined, other: string | undefined): boolean {
  if (value === undefined || other === undefined || !isHttpUrl(value) || !isHttpUrl(other)) return false;
  return new URL(value).origin === new URL(other).origin;
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "";
  } catch {
    return false;
  }
}
