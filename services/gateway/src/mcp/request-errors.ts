/**
 * The JSON-RPC errors the MCP prompt and resource methods answer with. Both
 * SDK generations send a thrown error's `code`, `message` and `data` as the
 * error response, so one error class serves both.
 */
import { currentRequestContext, isContextHubError, type Logger } from "@context-hub/common";

export const invalidParams = -32602;
export const internalError = -32603;

/** A JSON-RPC error both SDK generations send as thrown. */
export class McpRequestError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/**
 * A failure as a JSON-RPC error: request errors as they are, the store's
 * refusals with their message, anything unexpected logged and shown as a
 * request id only. `method` names the MCP method in the logs.
 */
export function toRequestError(error: unknown, logger: Logger, method: string): McpRequestError {
  if (error instanceof McpRequestError) return error;
  const requestId = currentRequestContext()?.requestId ?? "unknown";
  if (isContextHubError(error) && error.code !== "INTERNAL") {
    if (error.cause !== undefined) logger.warn({ err: error.cause, code: error.code, method }, "a peer call failed");
    return new McpRequestError(
      error.code === "INVALID_ARGUMENT" ? invalidParams : internalError,
      `${error.code}: ${error.message}`,
    );
  }
  logger.error({ err: error, method }, "an MCP request failed unexpectedly");
  return new McpRequestError(internalError, `Internal error. Quote request id ${requestId} when reporting it.`);
}
