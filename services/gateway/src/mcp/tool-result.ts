import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import {
  currentRequestContext,
  isContextHubError,
  type ContextHubError,
  type ErrorCode,
  type Logger,
} from "@context-hub/common";
import { neutraliseMarkers, renderForModel } from "./untrusted-text.js";

/**
 * A successful tool result: the raw structured content, plus its JSON as
 * text for clients without structured output — in which stored entries'
 * text is fenced as untrusted data (see untrusted-text.ts).
 */
export function toolSuccess(structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: "text", text: renderForModel(structured) }], structuredContent: structured };
}

/** What a caller is told to do about each kind of failure, when the error carries no remedy of its own. */
function defaultRemedy(code: ErrorCode): string | undefined {
  switch (code) {
    case "INVALID_ARGUMENT":
      return "fix the argument named in the message and call again";
    case "ENTRY_NOT_FOUND":
      return "check the id; search_context lists the entries you can see";
    case "AMBIGUOUS_ID_PREFIX":
      return "use a longer prefix or the full id";
    case "VERSION_CONFLICT":
      return "fetch the entry again and retry with its current version";
    case "DUPLICATE_VANISHED":
      return "retry the call";
    case "ALREADY_EXISTS":
      return "choose another name, or change or delete the one the message names";
    case "PERMISSION_DENIED":
      return "ask an administrator for the scope or grant named in the message";
    case "UNAUTHENTICATED":
      return "authenticate again";
    case "RATE_LIMITED":
      return "wait for the time the message names, then retry";
    case "STORE_UNAVAILABLE":
      // The store may have gone away after committing and before answering: only a keyed retry is safe for a write.
      return "retry shortly; retry a write with the same idempotency_key so that it is applied at most once";
    case "EMBEDDER_UNAVAILABLE":
    case "SUMMARIZER_UNAVAILABLE":
    case "RERANKER_UNAVAILABLE":
    case "PROVIDER_ERROR":
    case "DEADLINE_EXCEEDED":
      return "retry shortly; nothing was changed";
    case "TEXT_BUDGET_EXCEEDED":
      return "nothing was changed; split the text into smaller entries";
    case "EMBEDDING_SPACE_MISMATCH":
      return "an operator must re-embed the store (context-hub reembed)";
    case "INTERNAL":
      return undefined;
  }
}

/** A failure as every face of the gateway tells it: the code, a specific message, a remedy and the request id. */
export interface FailureDescription {
  code: ErrorCode;
  message: string;
  remedy?: string;
  details?: Record<string, unknown>;
  requestId: string;
}

/**
 * The one reading of a thrown error for callers, shared by MCP tool results
 * and REST problem details: domain errors keep their code, message and
 * remedy; unexpected errors are logged and shown only as a request id.
 */
export function describeFailure(error: unknown, logger: Logger): FailureDescription {
  const requestId = currentRequestContext()?.requestId ?? "unknown";
  if (!isContextHubError(error) || error.code === "INTERNAL") {
    if (!isContextHubError(error)) logger.error({ err: error }, "call failed unexpectedly");
    else logger.error({ err: error, cause: error.cause }, "call failed with an internal error");
    return { code: "INTERNAL", message: `Internal error. Quote request id ${requestId} when reporting it.`, requestId };
  }
  // A peer's own transport wording (gRPC's "No connection established…") is for operators: it goes to the log, not to the caller.
  if (error.cause !== undefined)
    logger.warn({ err: error.cause, code: error.code, details: error.details }, "call failed: a peer call failed");
  return describe(error, requestId);
}

/** The one mapping from domain errors to MCP tool results: `isError: true`, the code, a specific message and a remedy. */
export function toolFailure(error: unknown, logger: Logger): CallToolResult {
  return failureResult(describeFailure(error, logger));
}

function describe(error: ContextHubError, requestId: string): FailureDescription {
  const remedy = error.remedy ?? defaultRemedy(error.code);
  return {
    code: error.code,
    message: error.message,
    ...(remedy === undefined ? {} : { remedy }),
    ...(Object.keys(error.details).length > 0 ? { details: error.details } : {}),
    requestId,
  };
}

function failureResult(body: FailureDescription): CallToolResult {
  // Messages may quote stored values (a thread id, a tag): forged fence markers in them are neutralised like any stored string.
  const lines = [`${body.code}: ${neutraliseMarkers(body.message)}`];
  if (body.remedy !== undefined) lines.push(`Remedy: ${body.remedy}`);
  lines.push(`Request id: ${body.requestId}`);
  return { isError: true, content: [{ type: "text", text: lines.join("\n") }] };
}
