/**
 * The one domain error type. Domain code throws it with a string code; the
 * gRPC edge maps it to a status and back (see grpc/status.ts), and the
 * gateway maps it to an MCP tool result. Nothing else crosses service lines.
 */
export const errorCodes = [
  "INVALID_ARGUMENT",
  "ENTRY_NOT_FOUND",
  "AMBIGUOUS_ID_PREFIX",
  "VERSION_CONFLICT",
  "ALREADY_EXISTS",
  "DUPLICATE_VANISHED",
  "PERMISSION_DENIED",
  "UNAUTHENTICATED",
  "RATE_LIMITED",
  "EMBEDDER_UNAVAILABLE",
  "SUMMARIZER_UNAVAILABLE",
  "RERANKER_UNAVAILABLE",
  "STORE_UNAVAILABLE",
  "PROVIDER_ERROR",
  "DEADLINE_EXCEEDED",
  "TEXT_BUDGET_EXCEEDED",
  "EMBEDDING_SPACE_MISMATCH",
  "INTERNAL",
] as const;

export type ErrorCode = (typeof errorCodes)[number];

export function isErrorCode(value: string): value is ErrorCode {
  return (errorCodes as readonly string[]).includes(value);
}

export interface ContextHubErrorOptions {
  /** What the caller can do about it, e.g. "retry with expected_version 4". */
  remedy?: string;
  /** Small, JSON-serialisable facts a caller may act on (never secrets, SQL or stacks). */
  details?: Record<string, unknown>;
  cause?: unknown;
}

export class ContextHubError extends Error {
  override readonly name = "ContextHubError";
  readonly code: ErrorCode;
  readonly remedy: string | undefined;
  readonly details: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, options: ContextHubErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.remedy = options.remedy;
    this.details = options.details ?? {};
  }
}

export function isContextHubError(value: unknown): value is ContextHubError {
  return value instanceof ContextHubError;
}

/** Which provider, doing what, with which model: how every provider error names its source. */
export interface ProviderSource {
  /** Provider name as configured, e.g. "openai" or "builtin". */
  provider: string;
  /** What was asked of it, e.g. "embeddings" or "section summaries". */
  operation: string;
  model: string;
}

/**
 * A PROVIDER_ERROR worded like every other one, "openai embeddings (model
 * text-embedding-3-small) failed: <cause>", with provider and model in the
 * details as well.
 */
export function providerError(
  source: ProviderSource,
  cause: string,
  options: ContextHubErrorOptions = {},
): ContextHubError {
  const { provider, model } = source;
  return new ContextHubError("PROVIDER_ERROR", `${providerLabel(source)} failed: ${cause}`, {
    ...options,
    details: { provider, model, ...options.details },
  });
}

/** How errors and logs name a provider source: "openai embeddings (model text-embedding-3-small)". */
export const providerLabel = ({ provider, operation, model }: ProviderSource): string =>
  `${provider} ${operation} (model ${model})`;

/** Shorthand for the most common error: bad input, with what was wrong in the message. */
export function invalidArgument(message: string, remedy?: string): ContextHubError {
  return new ContextHubError("INVALID_ARGUMENT", message, remedy === undefined ? {} : { remedy });
}
