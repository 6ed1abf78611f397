/**
 * The console's only way to the hub: fetch calls to /api/v1 carrying the
 * API key as a bearer credential. The key lives in sessionStorage (gone
 * when the tab closes); no cookie is ever set, so there is nothing for a
 * cross-site request to ride on.
 */

const keyStorageName = "context-hub-console-key";

/** Dispatched on window when the API refuses the stored key; its detail is the ProblemError. */
export const unauthenticatedEvent = "context-hub-console:unauthenticated";

export function storedKey(): string | null {
  return sessionStorage.getItem(keyStorageName);
}

export function storeKey(key: string): void {
  sessionStorage.setItem(keyStorageName, key);
}

export function forgetKey(): void {
  sessionStorage.removeItem(keyStorageName);
}

/** An RFC 9457 problem detail the API answered, or one made up for a failure that never reached it. */
export class ProblemError extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    readonly detail: string,
    readonly remedy: string | undefined,
    readonly code: string | undefined,
  ) {
    super(`${title}: ${detail}`);
  }
}

export interface ApiCall {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface ApiReply<T> {
  body: T;
  etag: string | null;
}

/** Calls `method path` under /api/v1 with the stored key; a failure throws a ProblemError. */
export async function api<T>(method: string, path: string, call: ApiCall = {}): Promise<ApiReply<T>> {
  const url = new URL(`/api/v1${path}`, location.origin);
  for (const [name, value] of Object.entries(call.query ?? {}))
    if (value !== undefined) url.searchParams.set(name, String(value));
  const headers: Record<string, string> = { accept: "application/json", ...call.headers };
  const key = storedKey();
  if (key !== null) headers.authorization = `Bearer ${key}`;
  if (call.body !== undefined) headers["content-type"] = "application/json";
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      headers,
      credentials: "omit",
      cache: "no-store",
      ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
    });
  } catch (error) {
    throw new ProblemError(0, "The hub did not answer", String(error), "check that the gateway is running", undefined);
  }
  const text = await response.text();
  let json: unknown = undefined;
  try {
    json = text === "" ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  if (!response.ok) {
    const problem = toProblemError(response.status, response.statusText, json);
    // A key revoked or expired mid-session: the console goes back to sign-in rather than fail page by page.
    if (response.status === 401 && key !== null)
      window.dispatchEvent(new CustomEvent(unauthenticatedEvent, { detail: problem }));
    throw problem;
  }
  return { body: json as T, etag: response.headers.get("etag") };
}

function toProblemError(status: number, statusText: string, json: unknown): ProblemError {
  const problem = (typeof json === "object" && json !== null ? json : {}) as Record<string, unknown>;
  const text = (value: unknown) => (typeof value === "string" ? value : undefined);
  return new ProblemError(
    status,
    text(problem.title) ?? `HTTP ${status} ${statusText}`,
    text(problem.detail) ?? "",
    text(problem.remedy),
    text(problem.code),
  );
}
