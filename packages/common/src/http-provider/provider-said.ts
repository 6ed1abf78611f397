/**
 * What a provider said when a call failed, for the log only: the message of
 * its error body, or the network error behind a failed fetch. Callers are
 * told a fixed cause instead (provider-wording.ts).
 */

/** The message field of the usual JSON error shapes of provider APIs, if `value` has one. */
export function findErrorMessage(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const record = value as Record<string, unknown>;
  // OpenAI and Anthropic: {error: {message}}; Ollama and TEI: {error: "…"}; Cohere: {message}; Voyage and FastAPI servers: {detail}.
  const error = record.error;
  if (typeof error === "string") return error;
  if (typeof error === "object" && error !== null && typeof (error as Record<string, unknown>).message === "string")
    return (error as Record<string, string>).message;
  if (typeof record.message === "string") return record.message;
  if (typeof record.detail === "string") return record.detail;
  return undefined;
}

/** A network error with its cause (code and message), for the log: it can name hosts and addresses a caller need not see. */
export function describeNetworkError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // undici reports "fetch failed" and puts the reason (ECONNREFUSED, a reset socket…) in `cause`.
  const cause = error.cause;
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code;
    return typeof code === "string" && !cause.message.includes(code) ? `${code}: ${cause.message}` : cause.message;
  }
  return error.message;
}
