/**
 * How the gateway's HTTP faces refuse a request before running it: JSON-RPC
 * errors (the request id in their data) on /mcp and /artifacts, RFC 9457
 * problem details on /api/v1; and the count of requests refused for a
 * caller's rate budget.
 */
import type { Response } from "express";
import { counter } from "@context-hub/common";
import { challengeFor, type AuthFailure } from "./auth/authenticate.js";
import type { ProtectedResource } from "./auth/protected-resource.js";
import { sendProblem, toProblem } from "./rest/problem.js";

export const rateLimited = counter(
  "contexthub_rate_limited_total",
  "POSTs to /mcp refused for the caller's rate budget, by budget.",
  ["budget"],
);

export const jsonRpcError = (code: number, message: string, requestId: string) => ({
  jsonrpc: "2.0",
  error: { code, message, data: { request_id: requestId } },
  id: null,
});

/** How one face of the gateway answers a request it refuses before running anything. */
export interface Refusals {
  refuse(response: Response, failure: AuthFailure): void;
  tooMany(response: Response, retryAfterSeconds: number, message: string): void;
}

/** Refusals as JSON-RPC errors: the MCP face's, and the artifact downloads'. */
export function jsonRpcRefusals(protectedResource: ProtectedResource | undefined): Refusals {
  return {
    refuse(response, failure) {
      if (failure.status !== 503)
        response.setHeader("www-authenticate", challengeFor(failure, protectedResource?.metadataUrl));
      response
        .status(failure.status)
        .json(
          jsonRpcError(
            failure.status === 503 ? -32603 : -32001,
            failure.description,
            String(response.locals.requestId),
          ),
        );
    },
    tooMany(response, retryAfterSeconds, message) {
      response.setHeader("retry-after", String(retryAfterSeconds));
      response.status(429).json(jsonRpcError(-32000, message, String(response.locals.requestId)));
    },
  };
}

/** Refusals as the REST face's problem details. */
export function restRefusals(protectedResource: ProtectedResource | undefined): Refusals {
  return {
    refuse(response, failure) {
      if (failure.status !== 503)
        response.setHeader("www-authenticate", challengeFor(failure, protectedResource?.metadataUrl));
      const code =
        failure.status === 401 ? "UNAUTHENTICATED" : failure.status === 403 ? "PERMISSION_DENIED" : "PROVIDER_ERROR";
      sendProblem(response, toProblem({ code, message: failure.description }, failure.status));
    },
    tooMany(response, retryAfterSeconds, message) {
      response.setHeader("retry-after", String(retryAfterSeconds));
      sendProblem(response, toProblem({ code: "RATE_LIMITED", message }, 429));
    },
  };
}
