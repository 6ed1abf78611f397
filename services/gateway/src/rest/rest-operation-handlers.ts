/**
 * The request handlers of the REST API: each operation's admission (scope, then rate budget) and its run (arguments,
 * the tool, the reply with its ETag and conditional answers), and the answers for what no operation serves.
 */
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { ContextHubError, counter, type Logger } from "@context-hub/common";
import { gatewayClientsFor } from "../clients/gateway-clients.js";
import type { Peers } from "../clients/peers.js";
import { runTool } from "../mcp/create-mcp-server.js";
import type { ToolContext } from "../mcp/tool-definition.js";
import { overBudget, rateKeyOf } from "../metering.js";
import type { Principal } from "../principal.js";
import type { RateLimiter } from "../rate-limit.js";
import type { WritePath } from "../write-path.js";
import { challengeFor } from "../auth/authenticate.js";
import type { RestOperation } from "./operation.js";
import { sendError, sendProblem, toProblem } from "./problem.js";
import { defaultReply, describeIssues, etagOf, toArguments } from "./rest-translation.js";

/** What running an operation needs from the gateway. */
export interface OperationDependencies {
  peers: Peers;
  writePath: WritePath;
  logger: Logger;
  rateLimiter: RateLimiter;
}

const restCalls = counter("contexthub_rest_requests_total", "REST API requests by operation and status.", [
  "operation",
  "status",
]);

/** Scope first, then the budget: a call the caller may never make costs it nothing. */
export function admitOperation(rateLimiter: RateLimiter, operation: RestOperation): RequestHandler {
  const { tool } = operation;
  const cost = tool.annotations.readOnlyHint ? { read: 1 } : { write: 1 };
  return (_request: Request, response: Response, next: NextFunction) => {
    const principal = response.locals.principal as Principal;
    if (!principal.scopes.includes(tool.scope)) {
      const granted = principal.scopes.length === 0 ? "none" : principal.scopes.join(" ");
      const description = `${operation.operationId} needs scope ${tool.scope}; this credential grants ${granted}`;
      response.setHeader(
        "www-authenticate",
        challengeFor({ status: 403, error: "insufficient_scope", scope: tool.scope, description }, undefined),
      );
      sendProblem(
        response,
        toProblem(
          { code: "PERMISSION_DENIED", message: description, remedy: "ask an administrator for the scope" },
          403,
        ),
      );
      return;
    }
    const verdict = rateLimiter.takeAll(rateKeyOf(principal), cost);
    if (!verdict.ok) {
      const { message, remedy } = overBudget(verdict);
      response.setHeader("retry-after", String(verdict.retryAfterSeconds));
      sendProblem(
        response,
        toProblem(
          { code: "RATE_LIMITED", message, remedy, details: { retry_after_seconds: verdict.retryAfterSeconds } },
          429,
        ),
      );
      return;
    }
    next();
  };
}

/** Whether a GET's If-None-Match names the ETag the reply would carry (then the answer is 304). */
function notModified(operation: RestOperation, request: Request, etag: string): boolean {
  const ifNoneMatch = request.header("if-none-match");
  return (
    operation.method === "get" &&
    ifNoneMatch !== undefined &&
    ifNoneMatch.split(",").some((tag) => tag.trim() === "*" || tag.trim().replace(/^W\//, "") === etag)
  );
}

/** Runs the operation's tool for the authenticated caller and answers with its reply, or the error as a problem. */
export function runOperation(dependencies: OperationDependencies, operation: RestOperation) {
  const { tool } = operation;
  const context = (principal: Principal): ToolContext => ({
    principal,
    clients: gatewayClientsFor(dependencies.peers),
    peers: dependencies.peers,
    writePath: dependencies.writePath,
  });
  return async (request: Request, response: Response): Promise<void> => {
    const principal = response.locals.principal as Principal;
    let conditional = false;
    try {
      const { args, ifMatch } = toArguments(operation, request);
      conditional = ifMatch;
      const parsed = tool.inputSchema.safeParse(args);
      if (!parsed.success) throw new ContextHubError("INVALID_ARGUMENT", describeIssues(parsed.error.issues));
      const result = await runTool(tool, parsed.data, context(principal));
      const reply =
        operation.reply?.(result, request.params as Record<string, string>) ??
        defaultReply(operation, result, parsed.data as Record<string, unknown>);
      if (reply.version !== undefined) {
        const etag = etagOf(reply.version);
        response.setHeader("etag", etag);
        if (notModified(operation, request, etag)) {
          restCalls.inc({ operation: operation.operationId, status: "304" });
          response.status(304).end();
          return;
        }
      }
      if (reply.location !== undefined) response.setHeader("location", `${request.baseUrl}${reply.location}`);
      restCalls.inc({ operation: operation.operationId, status: String(reply.status) });
      if (reply.body === undefined) response.status(reply.status).end();
      else response.status(reply.status).json(reply.body);
    } catch (error) {
      // A version that moved since the caller's If-Match is a failed precondition (RFC 9110 §13.1.1).
      const failedPrecondition =
        conditional && error instanceof ContextHubError && error.code === "VERSION_CONFLICT" ? 412 : undefined;
      sendError(response, error, dependencies.logger, failedPrecondition);
      restCalls.inc({ operation: operation.operationId, status: String(response.statusCode) });
    }
  };
}

/** A known path asked with a method it does not take: 405 with the methods it does. */
export function methodNotAllowed(allowed: readonly string[]): RequestHandler {
  return (request: Request, response: Response) => {
    response.setHeader("allow", allowed.join(", "));
    sendProblem(
      response,
      toProblem(
        { code: "METHOD_NOT_ALLOWED", message: `${request.path} takes ${allowed.join(", ")}, not ${request.method}` },
        405,
      ),
    );
  };
}

/** A path no operation serves. */
export function noOperation(request: Request, response: Response): void {
  sendProblem(
    response,
    toProblem(
      {
        code: "NOT_FOUND",
        message: `no operation ${request.method} ${request.baseUrl}${request.path}`,
        remedy: "see /api/v1/openapi.json for the operations",
      },
      404,
    ),
  );
}

/** Body parser failures, as problems. */
export function bodyProblems(logger: Logger) {
  return (error: { type?: string } & Error, _request: Request, response: Response, next: NextFunction): void => {
    if (response.headersSent) {
      next(error);
      return;
    }
    if (error.type === "entity.too.large") {
      sendProblem(
        response,
        toProblem(
          {
            code: "INVALID_ARGUMENT",
            message:
              response.locals.writer === true
                ? "the body is larger than the largest write this server accepts"
                : "the body is larger than a credential without context:write may send",
          },
          413,
        ),
      );
    } else if (error.type === "entity.parse.failed") {
      sendProblem(response, toProblem({ code: "INVALID_ARGUMENT", message: "the body is not valid JSON" }, 400));
    } else {
      sendError(response, error, logger);
    }
  };
}
