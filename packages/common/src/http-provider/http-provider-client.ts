import type { z } from "zod";
import type { ContextHubError } from "../errors.js";
import { counter } from "../metrics.js";
import {
  attemptsText,
  createProviderCallContext,
  type HttpProviderClientOptions,
  type ProviderCallContext,
} from "./provider-call-context.js";
import { describeNetworkError } from "./provider-said.js";
import { networkCause, statusCause, toBodyExcerpt } from "./provider-wording.js";
import { fullJitterDelay, isRetryableStatus, parseRetryAfter } from "./retry-policy.js";

const providerRetries = counter(
  "contexthub_provider_retries_total",
  "Provider HTTP requests tried again, by provider, operation and reason (rate_limited, server_error, network).",
  ["provider", "operation", "reason"],
);

export type { HttpProviderClientOptions, ProviderClock } from "./provider-call-context.js";

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
/** One POST under the time left, read whole: the answer, a network error, or why it stopped. */
async function attempt(
  context: ProviderCallContext,
  url: URL,
  payload: string,
  remainingMs: number,
  signal: AbortSignal | undefined,
): Promise<AttemptOutcome | "timeout" | "cancelled"> {
  const { fetchImpl, headers } = context;
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
function validAnswer<S extends z.ZodType>(
  context: ProviderCallContext,
  status: number,
  text: string,
  attempts: number,
  schema: S,
): z.output<S> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    context.logFailure({ status, attempts }, `malformed response: HTTP ${status} with a body that is not JSON`, text);
    throw context.malformed(`HTTP ${status} with a body that is not JSON`);
  }
  const result = schema.safeParse(parsed);
  if (!result.success) {
    const issues = result.error.issues
      .slice(0, 3)
      .map((issue) => `${issue.path.length === 0 ? "(body)" : issue.path.join(".")}: ${issue.message}`);
    throw context.malformed(issues.join("; "));
  }
  return result.data;
}

/** A failed attempt (a network error or a status other than 2xx) as the caller and the log are told of it. */
function failedAttempt(context: ProviderCallContext, outcome: AttemptOutcome, attempts: number): FailedAttempt {
  const { settingsPrefix, logFailure, failure } = context;
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
      : context.remedyForStatus(outcome.status);
  // The network error stays in the log: its message names hosts and addresses the caller need not see.
  const fail = (message: string, extra: Record<string, unknown>, failureRemedy: string) => {
    logFailure({ ...details, ...extra }, message, said);
    return failure("PROVIDER_ERROR", message, { ...details, ...extra }, failureRemedy);
  };
  return { retryable, cause, said, remedy, fail };
}

/** The wait before the next attempt: what Retry-After asks, else the backoff; the call fails when it cannot afford the wait. */
function retryDelay(
  context: ProviderCallContext,
  outcome: AttemptOutcome,
  attempts: number,
  deadline: number,
  failed: FailedAttempt,
): number {
  const { maxRetryAfterMs, now, timeoutMs, backoffBaseMs, backoffCapMs, random } = context;
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
function noteRetry(
  context: ProviderCallContext,
  outcome: AttemptOutcome,
  attempts: number,
  delayMs: number,
  failed: FailedAttempt,
): void {
  const { provider, operation, model, label, options, redact } = context;
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

/** `HttpProviderClient.postJson` over the client's context: attempts, retries and waits within the time budget. */
async function postJson<S extends z.ZodType>(
  context: ProviderCallContext,
  path: string,
  body: unknown,
  schema: S,
  signal: AbortSignal | undefined,
): Promise<z.output<S>> {
  const { options, now, timeoutMs, cancelled, timedOut, maxRetries, wait } = context;
  const url = joinProviderUrl(options.baseUrl, path);
  const payload = JSON.stringify(body);
  const deadline = now() + timeoutMs;
  for (let attempts = 1; ; attempts++) {
    if (signal?.aborted) throw cancelled(attempts - 1);
    const remainingMs = deadline - now();
    if (remainingMs <= 0) throw timedOut(attempts - 1);
    const outcome = await attempt(context, url, payload, remainingMs, signal);
    if (outcome === "cancelled") throw cancelled(attempts);
    if (outcome === "timeout") throw timedOut(attempts);
    if (outcome.kind === "answer" && outcome.status >= 200 && outcome.status < 300)
      return validAnswer(context, outcome.status, outcome.text, attempts, schema);

    const failed = failedAttempt(context, outcome, attempts);
    if (!failed.retryable || attempts > maxRetries) throw failed.fail(failed.cause(), {}, failed.remedy);
    const delayMs = retryDelay(context, outcome, attempts, deadline, failed);
    noteRetry(context, outcome, attempts, delayMs, failed);
    try {
      await wait(delayMs, signal);
    } catch {
      throw cancelled(attempts);
    }
  }
}

/** A JSON-over-HTTP client for one provider endpoint family, with one policy for timeouts, retries and errors. */
export function createHttpProviderClient(options: HttpProviderClientOptions): HttpProviderClient {
  const context = createProviderCallContext(options);
  return {
    label: context.label,
    malformed: context.malformed,
    postJson: (path, body, schema, signal) => postJson(context, path, body, schema, signal),
  };
}
