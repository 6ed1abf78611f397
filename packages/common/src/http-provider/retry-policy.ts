/**
 * When a provider request may be tried again, and how long to wait first.
 * Pure functions; the HTTP client (http-provider-client.ts) applies them.
 */

/** Whether an HTTP status is worth another attempt: 429 (rate limited) and every 5xx. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || (status >= 500 && status <= 599);
}

const decimalSeconds = /^\d+(?:\.\d+)?$/;

/**
 * The wait an answer asks for, in milliseconds, or undefined when it names
 * none (or nothing parseable). Reads `retry-after-ms` (OpenAI, Azure) first,
 * then `Retry-After` as delta-seconds (fractions accepted, e.g. "0.5") or as
 * an HTTP date, relative to `now`. A date in the past means 0.
 */
export function parseRetryAfter(headers: Headers, now: number = Date.now()): number | undefined {
  const milliseconds = headers.get("retry-after-ms")?.trim();
  if (milliseconds !== undefined && decimalSeconds.test(milliseconds)) return Number(milliseconds);
  const value = headers.get("retry-after")?.trim();
  if (value === undefined || value === "") return undefined;
  if (decimalSeconds.test(value)) return Number(value) * 1000;
  // An HTTP date always names the weekday or month; this keeps Date.parse from guessing at bare numbers.
  if (!/[a-z]/i.test(value)) return undefined;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * "Full jitter" exponential backoff (AWS Architecture Blog, 2015): a uniform
 * wait in [0, min(capMs, baseMs · 2^retry)), so many clients that failed
 * together do not retry together. `retry` counts from 0.
 */
export function fullJitterDelay(
  retry: number,
  baseMs: number,
  capMs: number,
  random: () => number = Math.random,
): number {
  return Math.floor(random() * Math.min(capMs, baseMs * 2 ** retry));
}
