/**
 * How a provider's failure is worded: the fixed phrases a caller is told for
 * an HTTP status or a failed connection, and the bounded excerpt of what the
 * provider said that goes to the log instead (http-provider-client.ts).
 */
import { findErrorMessage } from "./provider-said.js";

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
