/**
 * What one provider client is set up with, and the context its calls share:
 * the settings with their defaults filled in, and how a failure is redacted,
 * worded, logged and raised, naming the provider, the model and the setting
 * to change.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { ContextHubError, providerLabel } from "../errors.js";
import type { Logger } from "../logger.js";
import { toBodyExcerpt } from "./provider-wording.js";

export interface HttpProviderClientOptions {
  /** Provider name as configured, e.g. "openai"; names the provider in errors, logs and metrics. */
  provider: string;
  /** What the endpoint does, e.g. "embeddings", "chat completions", "rerank". */
  operation: string;
  /** Model id, named in every error. */
  model: string;
  /** Scheme, host and optional path prefix and query, e.g. "https://api.openai.com" or "http://gw/openai?api-version=1". */
  baseUrl: string;
  /** Headers sent with every request (authentication, API version). */
  headers?: Record<string, string>;
  /** Values never to print: every occurrence in an error message or a log line is replaced by "[redacted]". */
  secrets?: readonly (string | undefined)[];
  /** Time budget of one `postJson` call: every attempt and every wait between attempts. */
  timeoutMs: number;
  /** Extra attempts after the first on 429, 5xx and network errors. */
  maxRetries: number;
  /** Prefix of the service's settings, e.g. "EMBEDDER", so remedies name the variable to change. */
  settingsPrefix: string;
  /** First backoff step (before jitter); default 250 ms. */
  backoffBaseMs?: number;
  /** Largest backoff step (before jitter); default 8 s. */
  backoffCapMs?: number;
  /** Longest wait a Retry-After header can impose; a provider asking for more fails the call at once. Default 30 s. */
  maxRetryAfterMs?: number;
  /** Where failures are logged with what the provider said (its error body, bounded); callers are told only a fixed cause. */
  logger?: Pick<Logger, "warn">;
  /** Replaces the global fetch (tests). */
  fetch?: typeof fetch;
  /** Replaces Math.random for the jitter (tests). */
  random?: () => number;
  /** Replaces the wall clock the call's time budget is measured on (tests); default Date.now. */
  now?: () => number;
  /** Replaces the wait between attempts (tests); rejects when `signal` aborts. Default a timer. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** The clock a provider client measures its budget and waits on: the real one unless a test passes its own. */
export type ProviderClock = Pick<HttpProviderClientOptions, "now" | "sleep">;

/** "1 attempt", "3 attempts". */
export const attemptsText = (attempts: number) => `${attempts} attempt${attempts === 1 ? "" : "s"}`;

/** One client's settings, resolved with their defaults. */
interface ProviderSettings {
  options: HttpProviderClientOptions;
  provider: string;
  operation: string;
  model: string;
  label: string;
  timeoutMs: number;
  maxRetries: number;
  settingsPrefix: string;
  fetchImpl: typeof fetch;
  random: () => number;
  now: () => number;
  wait: (ms: number, signal?: AbortSignal) => Promise<void>;
  backoffBaseMs: number;
  backoffCapMs: number;
  maxRetryAfterMs: number;
  headers: Record<string, string>;
}

/** What every call of one client needs: its settings and how it words, logs and raises its failures. */
export interface ProviderCallContext extends ProviderSettings {
  redact: (text: string) => string;
  failure: (
    code: "PROVIDER_ERROR" | "DEADLINE_EXCEEDED",
    cause: string,
    details: Record<string, unknown>,
    remedy: string,
    error?: unknown,
  ) => ContextHubError;
  remedyForStatus: (status: number) => string;
  timedOut: (attempts: number) => ContextHubError;
  cancelled: (attempts: number) => ContextHubError;
  malformed: (reason: string) => ContextHubError;
  /** Logs a failure the caller is told about in fixed words, with what the provider said, bounded and redacted (the logger adds the request id). */
  logFailure: (details: Record<string, unknown>, cause: string, said: string) => void;
}

/** The client's settings with their defaults filled in. */
function resolveSettings(options: HttpProviderClientOptions): ProviderSettings {
  const { provider, operation, model, timeoutMs, maxRetries, settingsPrefix } = options;
  const label = providerLabel({ provider, operation, model });
  const fetchImpl = options.fetch ?? fetch;
  const random = options.random ?? Math.random;
  const now = options.now ?? Date.now;
  const wait = options.sleep ?? ((ms: number, signal?: AbortSignal) => sleep(ms, undefined, { signal }));
  const backoffBaseMs = options.backoffBaseMs ?? 250;
  const backoffCapMs = options.backoffCapMs ?? 8000;
  const maxRetryAfterMs = options.maxRetryAfterMs ?? 30_000;
  const headers = { "content-type": "application/json", accept: "application/json", ...options.headers };
  return {
    options,
    provider,
    operation,
    model,
    label,
    timeoutMs,
    maxRetries,
    settingsPrefix,
    fetchImpl,
    random,
    now,
    wait,
    backoffBaseMs,
    backoffCapMs,
    maxRetryAfterMs,
    headers,
  };
}

/** The settings with the failures they word: redacted, naming provider and model, with a remedy naming the setting. */
function createCallContext(settings: ProviderSettings): ProviderCallContext {
  const { options, provider, operation, model, label, timeoutMs, settingsPrefix } = settings;
  const secrets = (options.secrets ?? []).filter(
    (secret): secret is string => secret !== undefined && secret.length >= 4,
  );

  const redact = (text: string) => secrets.reduce((result, secret) => result.split(secret).join("[redacted]"), text);
  const failure = (
    code: "PROVIDER_ERROR" | "DEADLINE_EXCEEDED",
    cause: string,
    details: Record<string, unknown>,
    remedy: string,
    error?: unknown,
  ) =>
    new ContextHubError(code, redact(`${label} failed: ${cause}`), {
      remedy,
      details: { provider, model, ...details },
      ...(error === undefined ? {} : { cause: error }),
    });
  const remedyForStatus = (status: number) => {
    if (status === 401 || status === 403) return `check ${settingsPrefix}_API_KEY`;
    if (status === 404) return `check ${settingsPrefix}_BASE_URL and ${settingsPrefix}_MODEL`;
    if (status === 400 || status === 413 || status === 422)
      return "the provider refused the request; check the model's limits (input length, batch size) and the settings of this provider";
    return `retry later; if it persists, check the provider or raise ${settingsPrefix}_MAX_RETRIES`;
  };
  const timedOut = (attempts: number) =>
    failure(
      "DEADLINE_EXCEEDED",
      `no answer within ${timeoutMs} ms (${attemptsText(attempts)})`,
      { attempts, timeout_ms: timeoutMs },
      `raise ${settingsPrefix}_TIMEOUT_MS or check that the provider is up`,
    );
  const cancelled = (attempts: number) =>
    failure(
      "DEADLINE_EXCEEDED",
      `stopped after ${attemptsText(attempts)}: the caller's deadline passed or it cancelled`,
      { attempts },
      "retry with a longer deadline",
    );
  const malformed = (reason: string) =>
    failure(
      "PROVIDER_ERROR",
      `malformed response: ${reason}`,
      {},
      `check that ${settingsPrefix}_PROVIDER and ${settingsPrefix}_BASE_URL point at a server speaking this API`,
    );
  const logFailure = (details: Record<string, unknown>, cause: string, said: string) =>
    options.logger?.warn(
      { provider, model, operation, ...details, provider_said: redact(toBodyExcerpt(said)) || "(empty)" },
      `${label} failed: ${cause}`,
    );
  return { ...settings, redact, failure, remedyForStatus, timedOut, cancelled, malformed, logFailure };
}

/** The call context of a client set up with `options`. */
export function createProviderCallContext(options: HttpProviderClientOptions): ProviderCallContext {
  return createCallContext(resolveSettings(options));
}
