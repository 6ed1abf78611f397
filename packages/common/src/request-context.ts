import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";

/** What travels with one request through every service it touches. */
export interface RequestContext {
  /** The id this deployment gave the request: generated at the gateway, never chosen by the caller. */
  requestId: string;
  /** The id the caller sent with the request (its X-Request-Id), sanitised; kept beside `requestId` for correlation only. */
  clientRequestId?: string | undefined;
}

const storage = new AsyncLocalStorage<RequestContext>();

/** Runs `fn` with the given request context visible to logs and outgoing gRPC calls. */
export function runWithRequestContext<T>(context: RequestContext, fn: () => T): T {
  return storage.run(context, fn);
}

export function currentRequestContext(): RequestContext | undefined {
  return storage.getStore();
}

/** Whether `value` can serve as a request id carried between services: non-empty, at most 128 characters. */
export function isRequestId(value: unknown): value is string {
  return typeof value === "string" && value.length > 0 && value.length <= 128;
}

export function newRequestId(): string {
  return randomUUID();
}

/** gRPC metadata key and HTTP header carrying the request id. */
export const requestIdHeader = "x-request-id";

/** gRPC metadata key carrying the caller's own request id from the gateway to the services behind it. */
export const clientRequestIdHeader = "x-client-request-id";

/** The longest caller request id kept. */
export const maxClientRequestIdLength = 128;

/**
 * A caller's request id as it may be logged and recorded: characters other
 * than letters, digits and `._:/+=@-` become `_` (no control characters,
 * quotes or spaces to forge log lines with), cut to 128 characters;
 * undefined when nothing is left.
 */
export function toClientRequestId(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const cleaned = value.slice(0, maxClientRequestIdLength).replace(/[^\w.:/+=@-]/g, "_");
  return cleaned.length === 0 ? undefined : cleaned;
}
