import { setTimeout as sleep } from "node:timers/promises";
import type { z } from "zod";
import { ContextHubError, providerLabel } from "../errors.js";
import type { Logger } from "../logger.js";
import { counter } from "../metrics.js";
import { describeNetworkError, findErrorMessage } from "./provider-said.js";
import { fullJitterDelay, isRetryableStatus, parseRetryAfter } from "./retry-policy.js";

const providerRetries = counter(
  "contexthub_provider_retries_total",
  "Provider HTTP requests tried again, by provider, operation and reason (rate_limited, server_error, network).",
  ["provider", "operation", "reason"],
);

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

export interface HttpProviderClient {
  /** "openai embeddings (model text-embedding-3-small)": how errors name this endpoint. */
  readonly label: string;
  /**
   * POSTs `body` as JSON to `path` under the base URL and returns the answer
   * validated by `schema`. Retries 429, 5xx and network errors up to
   * `maxRetries` times with full-jitter backoff, or after the wait that
   * `Retry-After` asks for, all within `timeoutMs`. A Retry-After wait longer
   * than `maxRetryAfterMs` or past the time budget is not shortened: the call
   * fails at once, naming the wait the provider asked for.
   *
   * @throws ContextHubError DEADLINE_EXCEEDED when the time budget runs out or
   * `signal` aborts; PROVIDER_ERROR for any other failure (HTTP status,
   * network error after the last attempt, an answer that is not JSON or does
   * not match `schema`). Messages name provider, model, HTTP status and a
   * cause from a fixed vocabulary (`statusCause`, `networkCause`), never the
   * provider's own words: its error body can echo keys, prompts or internal
   * hosts, so it goes to the log (bounded, with the request id) instead.
   */
  postJson<S extends z.ZodType>(path: string, body: unknown, schema: S, signal?: AbortSignal): Promise<z.output<S>>;
  /** A PROVIDER_ERROR for a well-formed answer that is still unusable (wrong count, wrong dimension…). */
  malformed(reason: string): ContextHubError;
}

/** The URL of `path` under `baseUrl`, keeping the base's path prefix and query; a base ending in "/v1" is not doubled by a path starting with "/v1/". */
export function joinProviderUrl(baseUrl: string, path: string): URL {
  const url = new URL(baseUrl);
  let prefix = url.pathname.replace(/\/+$/, "");
  if (prefix.endsWith("/v1") && path.startsWith("/v1/")) prefix = prefix.slice(0, -3);
  url.pathname = `${prefix}${path}`;
  return url;
}

/** Characters of a provider's error body that reach the log. */
export const loggedBodyChars = 2_000;

/** The most telling part of an error body, for the log: the message field of the usual JSON error shapes, else the body itself, cut to `maxChars`. */
export function toBodyExcerpt(body: string, maxChars = loggedBodyChars): string {
  let text = body;
  try {
    const parsed: unknown = JSON.parse(body);
    text = findErrorMessage(parsed) ?? body;
  } catch {
    // Not JSON (an HTML error page from a proxy, plain text): show it as it is.
  }
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > maxChars ? `${flat.slice(0, maxChars)}…` : flat;
}

/**
 * What an HTTP status from a provider means, in a fixed phrase a caller may
 * see: "authentication failed", "rate limited", "provider unavailable"….
 */
export function statusCause(status: number): string {
  switch (status) {
    case 401:
      return "authentication failed";
    case 403:
      return "permission denied";
    case 404:
      return "model or endpoint not found";
    case 408:
      return "request timed out";
    case 413:
      return "request too large";
    case 429:
      return "rate limited";
    case 502:
    case 503:
    case 504:
      return "provider unavailable";
    case 529:
      return "provider overloaded";
  }
  if (status >= 400 && status < 500) return "request refused";
  if (status >= 500) return "provider error";
  return "unexpected answer";
}

/** What a failed connection means, in a fixed phrase a caller may see; the error itself (hosts, addresses) goes to the log. */
export function networkCause(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  const code = typeof cause === "object" && cause !== null ? (cause as { code?: unknown }).code : undefined;
  switch (code) {
    case "ECONNREFUSED":
      return "connection refused";
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return "host not found";
    case "ECONNRESET":
    case "EPIPE":
    case "UND_ERR_SOCKET":
      return "connection reset";
    case "ETIMEDOUT":
    case "UND_ERR_CONNECT_TIMEOUT":
      return "connection timed out";
    case "EHOSTUNREACH":
    case "ENETUNREACH":
      return "host unreachable";
  }
  if (typeof code === "string" && /^(?:ERR_TLS|ERR_SSL|CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED)/.test(code))
    return "TLS error";
  return "network error";
}

const attemptsText = (attempts: number) => `${attempts} attempt${attempts === 1 ? "" : "s"}`;

type AttemptOutcome =
  | { kind: "answer"; status: number; headers: Headers; text: string }
  | { kind: "network"; error: unknown };

/** A failed attempt as the caller and the log are told of it. */
interface FailedAttempt {
  /** Whether another attempt may succeed: a network error, 429 or 5xx. */
  retryable: boolean;
  /** What happened, in fixed words, with a note on why the call stops there when it does. */
  cause: (note?: string) => string;
  /** What the provider said (or the socket error): for the log, never the caller. */
  said: string;
  remedy: string;
  /** Logs the failure with what the provider said and returns the PROVIDER_ERROR the caller is told. */
  fail: (message: string, extra: Record<string, unknown>, failureRemedy: string) => ContextHubError;
}

/** A JSON-over-HTTP client for one provider endpoint family, with one policy for timeouts, retries and errors. */
export function createHttpProviderClient(options: HttpProviderClientOptions): HttpProviderClient {
  const { provider, operation, model, timeoutMs, maxRetries, settingsPrefix } = options;
  const label = providerLabel({ provider, operation, model });
  const fetchImpl = options.fetch ?? fetch;
  const random = options.random ?? Math.random;
  const now = options.now ?? Date.now;
  const wait = options.sleep ?? ((ms: number, signal?: AbortSignal) => sleep(ms, undefined, { signal }));
  const backoffBaseMs = options.backoffBaseMs ?? 250;
  const backoffCapMs = options.backoffCapMs ?? 8000;
  const maxRetryAfterMs = options.maxRetryAfterMs ?? 30_000;
  const secrets = (options.secrets ?? []).filter(
    (secret): secret is string => secret !== undefined && secret.length >= 4,
  );
  const headers = { "content-type": "application/json", accept: "application/json", ...options.headers };

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
  /** Logs a failure the caller is told about in fixed words, with what the provider said, bounded and redacted (the logger adds the request id). */
  const logFailure = (details: Record<string, unknown>, cause: string, said: string) =>
    options.logger?.warn(
      { provider, model, operation, ...details, provider_said: redact(toBodyExcerpt(said)) || "(empty)" },
      `${label} failed: ${cause}`,
    );

  async function attempt(
    url: URL,
    payload: string,
    remainingMs: number,
    signal: AbortSignal | undefined,
  ): Promise<AttemptOutcome | "timeout" | "cancelled"> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort("timeout"), remainingMs);
    const onAbort = () => controller.abort("cancelled");
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      const response = await fetchImpl(url, { method: "POST", headers, body: payload, signal: controller.signal });
      // The body is read under the same timer: a server that sends headers and then stalls still times out.
      const text = await response.text();
      return { kind: "answer", status: response.status, headers: response.headers, text };
    } catch (error) {
      if (controller.signal.aborted) return controller.signal.reason === "cancelled" ? "cancelled" : "timeout";
      return { kind: "network", error };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    }
  }

  /** The answer of a 2xx attempt, parsed and checked against `schema`: PROVIDER_ERROR when it is not JSON or does not match. */
  function validAnswer<S extends z.ZodType>(status: number, text: string, attempts: number, schema: S): z.output<S> {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      logFailure({ status, attempts }, `malformed response: HTTP ${status} with a body that is not JSON`, text);
      throw malformed(`HTTP ${status} with a body that is not JSON`);
    }
    const result = schema.safeParse(parsed);
    if (!result.success) {
      const issues = result.error.issues
        .slice(0, 3)
        .map((issue) => `${issue.path.length === 0 ? "(body)" : issue.path.join(".")}: ${issue.message}`);
      throw malformed(issues.join("; "));
    }
    return result.data;
  }

  /** A failed attempt (a network error or a status other than 2xx) as the caller and the log are told of it. */
  function failedAttempt(outcome: AttemptOutcome, attempts: number): FailedAttempt {
    const retryable = outcome.kind === "network" || isRetryableStatus(outcome.status);
    // The caller learns the status and a fixed phrase; what the provider said (or the socket error, with hosts) is logged.
    const fixedCause = outcome.kind === "network" ? networkCause(outcome.error) : statusCause(outcome.status);
    const what = `${outcome.kind === "network" ? "network error" : `HTTP ${outcome.status}`} (${fixedCause}) after ${attemptsText(attempts)}`;
    const cause = (note?: string) => `${what}${note === undefined ? "" : `; ${note}`}`;
    const said = outcome.kind === "network" ? describeNetworkError(outcome.error) : outcome.text;
    const details =
      outcome.kind === "network"
        ? { attempts, cause: fixedCause }
        : { attempts, status: outcome.status, cause: fixedCause };
    const remedy =
      outcome.kind === "network"
        ? `check ${settingsPrefix}_BASE_URL and that the provider is reachable`
        : remedyForStatus(outcome.status);
    // The network error stays in the log: its message names hosts and addresses the caller need not see.
    const fail = (message: string, extra: Record<string, unknown>, failureRemedy: string) => {
      logFailure({ ...details, ...extra }, message, said);
      return failure("PROVIDER_ERROR", message, { ...details, ...extra }, failureRemedy);
    };
    return { retryable, cause, said, remedy, fail };
  }

  /** The wait before the next attempt: what Retry-After asks, else the backoff; the call fails when it cannot afford the wait. */
  function retryDelay(outcome: AttemptOutcome, attempts: number, deadline: number, failed: FailedAttempt): number {
    const askedMs = outcome.kind === "answer" ? parseRetryAfter(outcome.headers) : undefined;
    if (askedMs !== undefined) {
      // A retry sooner than the provider asked would be refused again (and may count against the quota), so a wait
      // the client cannot afford ends the call now, saying how long the provider wants.
      const asked = Math.round(askedMs);
      const tooLong =
        askedMs > maxRetryAfterMs
          ? `is longer than the ${maxRetryAfterMs} ms a retry may wait`
          : now() + askedMs >= deadline
            ? `would pass the ${timeoutMs} ms timeout`
            : undefined;
      if (tooLong !== undefined) {
        const retryRemedy = `the provider asked to wait ${asked} ms before trying again; retry after that`;
        throw failed.fail(
          failed.cause(`the ${asked} ms Retry-After wait ${tooLong}`),
          { retry_after_ms: asked },
          retryRemedy,
        );
      }
    }
    const delayMs = askedMs ?? fullJitterDelay(attempts - 1, backoffBaseMs, backoffCapMs, random);
    if (now() + delayMs >= deadline) {
      throw failed.fail(
        failed.cause(`the next retry (in ${delayMs} ms) would pass the ${timeoutMs} ms timeout`),
        {},
        failed.remedy,
      );
    }
    return delayMs;
  }

  /** Counts and logs a retry that waits `delayMs` first. */
  function noteRetry(outcome: AttemptOutcome, attempts: number, delayMs: number, failed: FailedAttempt): void {
    const reason = outcome.kind === "network" ? "network" : outcome.status === 429 ? "rate_limited" : "server_error";
    providerRetries.inc({ provider, operation, reason });
    options.logger?.warn(
      {
        provider,
        model,
        operation,
        attempt: attempts,
        ...(outcome.kind === "answer" ? { status: outcome.status } : {}),
        delayMs,
        provider_said: redact(toBodyExcerpt(failed.said)),
      },
      `${label}: ${failed.cause()}; retrying`,
    );
  }

  return {
    label,
    malformed,
    async postJson(path, body, schema, signal) {
      const url = joinProviderUrl(options.baseUrl, path);
      const payload = JSON.stringify(body);
      const deadline = now() + timeoutMs;
      for (let attempts = 1; ; attempts++) {
        if (signal?.aborted) throw cancelled(attempts - 1);
        const remainingMs = deadline - now();
        if (remainingMs <= 0) throw timedOut(attempts - 1);
        const outcome = await attempt(url, payload, remainingMs, signal);
        if (outcome === "cancelled") throw cancelled(attempts);
        if (outcome === "timeout") throw timedOut(attempts);
        if (outcome.kind === "answer" && outcome.status >= 200 && outcome.status < 300)
          return validAnswer(outcome.status, outcome.text, attempts, schema);

        const failed = failedAttempt(outcome, attempts);
        if (!failed.retryable || attempts > maxRetries) throw failed.fail(failed.cause(), {}, failed.remedy);
        const delayMs = retryDelay(outcome, attempts, deadline, failed);
        noteRetry(outcome, attempts, delayMs, failed);
        try {
          await wait(delayMs, signal);
        } catch {
          throw cancelled(attempts);
        }
      }
    },
  };
}
