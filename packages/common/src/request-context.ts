import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";

/** What travels with one request through every service it touches. */
export interface RequestContext {
  requestId: string;
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
