/**
 * `/api/v1`: the gateway's REST face. Each operation runs one tool through
 * the same domain clients, scopes, rate budgets and write path as MCP; this
 * file only translates HTTP (path, query, body, Idempotency-Key, If-Match,
 * If-None-Match, cursors) to tool arguments and tool results to HTTP.
 */
import express, { type NextFunction, type Request, type RequestHandler, type Response } from "express";
import { ContextHubError, counter, type Logger } from "@context-hub/common";
import { gatewayClientsFor } from "../clients/gateway-clients.js";
import type { Peers } from "../clients/peers.js";
import { runTool } from "../mcp/create-mcp-server.js";
import type { ToolContext, ToolDefinition } from "../mcp/tool-definition.js";
import type { StaticResource } from "../mcp/resources.js";
import { overBudget, rateKeyOf } from "../metering.js";
import type { Principal } from "../principal.js";
import type { RateLimiter } from "../rate-limit.js";
import type { WritePath } from "../write-path.js";
import { challengeFor } from "../auth/authenticate.js";
import { createOpenApiDocument } from "./openapi.js";
import type { RestOperation, RestReply } from "./operation.js";
import { restOperations } from "./operations.js";
import { sendError, sendProblem, toProblem } from "./problem.js";
import { requestShapeOf, type QueryStyle } from "./request-shape.js";

export interface RestRouterOptions {
  peers: Peers;
  writePath: WritePath;
  logger: Logger;
  /** The tools this deployment offers: an operation whose tool is disabled is not served (nor documented). */
  tools: readonly ToolDefinition[];
  rateLimiter: RateLimiter;
  /** The gateway's authentication, answering refusals as problem details. */
  authenticate: RequestHandler;
  /** The gateway's body parser (its limit follows the caller's scopes). */
  parseBody: RequestHandler;
  /** Whether a browser Origin may call (the same DNS-rebinding rule as /mcp). */
  originAllowed: (origin: string) => boolean;
  /** The OpenAPI document of the served operations, as JSON text (openApiDocumentOf). */
  openApiDocument: string;
}

const restCalls = counter("contexthub_rest_requests_total", "REST API requests by operation and status.", [
  "operation",
  "status",
]);

/** The operations this deployment serves: those whose tool is enabled (API key operations are always on). */
export function servedOperations(tools: readonly ToolDefinition[]): RestOperation[] {
  const enabled = new Set(tools.map((tool) => tool.name));
  return restOperations.filter((operation) => enabled.has(operation.tool.name) || operation.tag === "api-keys");
}

/** The OpenAPI document of what this deployment serves, as JSON text: /api/v1/openapi.json and an MCP resource. */
export function openApiDocumentOf(tools: readonly ToolDefinition[], version: string): string {
  return JSON.stringify(createOpenApiDocument(servedOperations(tools), version));
}

/** The MCP resource that carries the OpenAPI document, for agents that call the REST API or write code against it. */
export function openApiResource(document: string): StaticResource {
  return {
    uri: "context-hub://api/openapi.json",
    name: "openapi.json",
    title: "REST API (OpenAPI 3.1)",
    description: "The OpenAPI 3.1 document of this server's REST API at /api/v1, the same as GET /api/v1/openapi.json.",
    mimeType: "application/json",
    text: document,
  };
}

/** An opaque page cursor: the tool's offset or before_seq it stands for. */
const encodeCursor = (kind: string, value: number) => Buffer.from(`${kind}:${value}`).toString("base64url");

function decodeCursor(kind: string, cursor: unknown): number {
  const [prefix, value] = typeof cursor === "string" ? Buffer.from(cursor, "base64url").toString().split(":") : [];
  const number = Number(value);
  if (prefix !== kind || value === undefined || !Number.isSafeInteger(number) || number < 0)
    throw new ContextHubError("INVALID_ARGUMENT", "cursor is not one this API issued", {
      remedy: "pass next_cursor of the previous page as it is, or leave cursor out for the first page",
    });
  return number;
}

/** The entry version an If-Match (or If-None-Match) value names: `"3"`; `*` names none. */
function versionOfTag(header: string): number | "any" {
  if (header.trim() === "*") return "any";
  const match = /^\s*(?:W\/)?"(\d{1,9})"\s*$/.exec(header);
  if (match === null)
    throw new ContextHubError("INVALID_ARGUMENT", `If-Match ${JSON.stringify(header)} is not an ETag this API sent`, {
      remedy: 'send the ETag of your last read, e.g. If-Match: "3"',
    });
  return Number(match[1]);
}

const etagOf = (version: number) => `"${version}"`;

function queryValue(style: QueryStyle, raw: unknown, name: string): unknown {
  const values = Array.isArray(raw) ? raw.map(String) : [String(raw)];
  const one = () => {
    if (values.length !== 1) throw new ContextHubError("INVALID_ARGUMENT", `give ${name} once`);
    return values[0]!;
  };
  switch (style) {
    case "list":
      return values;
    case "number": {
      const text = one();
      return text.trim() === "" ? text : Number(text);
    }
    case "boolean": {
      const text = one();
      return text === "true" ? true : text === "false" ? false : text;
    }
    case "json": {
      const text = one();
      try {
        return JSON.parse(text) as unknown;
      } catch {
        return text;
      }
    }
    case "string":
      return one();
  }
}

/** The tool's arguments from the request: path, query or body, headers and cursor. */
function toArguments(operation: RestOperation, request: Request): { args: Record<string, unknown>; ifMatch: boolean } {
  const shape = requestShapeOf(operation);
  const path = request.params as Record<string, string>;
  const args: Record<string, unknown> = {};
  const refuseBound = (name: string, where: string) => {
    if (shape.bound.has(name))
      throw new ContextHubError("INVALID_ARGUMENT", `${name} is not taken from the ${where} here`, {
        remedy: `see /api/v1/openapi.json for where ${operation.operationId} takes it (path, Idempotency-Key, If-Match or cursor)`,
      });
  };
  for (const [name, raw] of Object.entries(request.query)) {
    if (name === "cursor" && operation.paging !== undefined) continue;
    if (operation.argumentsIn !== "query")
      throw new ContextHubError("INVALID_ARGUMENT", `${operation.operationId} takes no query parameter ${name}`, {
        remedy: `send its arguments ${operation.argumentsIn === "body" ? "in the JSON body" : "in the path"}`,
      });
    refuseBound(name, "query");
    const parameter = shape.query.get(name);
    args[name] = parameter === undefined ? raw : queryValue(parameter.style, raw, name);
  }
  if (operation.argumentsIn === "body") {
    // A body whose every field is optional may be left out.
    const body: unknown = request.body === undefined && shape.body?.required === undefined ? {} : request.body;
    if (body === null || typeof body !== "object" || Array.isArray(body))
      throw new ContextHubError("INVALID_ARGUMENT", "the body must be a JSON object", {
        remedy: "send Content-Type: application/json with an object",
      });
    for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
      refuseBound(name, "body");
      args[name] = value;
    }
  }
  for (const [name, parameter] of Object.entries(operation.pathArguments ?? {})) {
    if (parameter.argument === undefined) continue;
    const raw = path[name] ?? "";
    args[parameter.argument] = parameter.type === "integer" && /^\d{1,9}$/.test(raw) ? Number(raw) : raw;
  }
  Object.assign(args, operation.fixedArguments?.(path));
  const key = request.header("idempotency-key");
  if (key !== undefined && shape.idempotencyKey) args.idempotency_key = key;
  const ifMatch = request.header("if-match");
  let conditional = false;
  if (ifMatch !== undefined && shape.ifMatch !== undefined) {
    const version = versionOfTag(ifMatch);
    if (version !== "any") {
      args.expected_version = version;
      conditional = true;
    }
  }
  const cursor = request.query.cursor;
  if (operation.paging !== undefined && cursor !== undefined)
    args[operation.paging] = decodeCursor(operation.paging, cursor);
  return { args, ifMatch: conditional };
}

function describeIssues(issues: readonly { path: readonly PropertyKey[]; message: string }[]): string {
  return issues
    .map((issue) => (issue.path.length > 0 ? `${issue.path.map(String).join(".")}: ${issue.message}` : issue.message))
    .join("; ");
}

/** The default reply: the tool's result, with next_cursor when the operation is paged. */
function defaultReply(
  operation: RestOperation,
  result: Record<string, unknown>,
  args: Record<string, unknown>,
): RestReply {
  const status = operation.status ?? 200;
  if (operation.paging === "offset") {
    // The next page starts after the items of this one (every offset-paged tool answers count or a full page of limit).
    const next = Number(args.offset ?? 0) + Number(typeof result.count === "number" ? result.count : result.limit);
    return { status, body: { ...result, next_cursor: result.has_more === true ? encodeCursor("offset", next) : null } };
  }
  if (operation.paging === "before_seq") {
    const next = result.next_before_seq;
    return {
      status,
      body: { ...result, next_cursor: typeof next === "number" ? encodeCursor("before_seq", next) : null },
    };
  }
  return { status, body: result };
}

/** The express path of an OpenAPI path: `/entries/{id}` → `/entries/:id`. */
const expressPath = (path: string) => path.replaceAll(/\{(\w+)\}/g, ":$1");

/** The /api/v1 application, mounted by the gateway's. */
export function createRestRouter(options: RestRouterOptions): express.Express {
  const { logger } = options;
  const router = express();
  // ETags here are entry versions, set by the operations; express's own (a hash of the body) would differ between a
  // hidden entry's 404 and a missing one's, and answer 304 to reads that carry no version.
  router.set("etag", false);
  router.disable("x-powered-by");
  const operations = servedOperations(options.tools);

  router.use((request: Request, response: Response, next: NextFunction) => {
    const origin = request.header("origin");
    if (origin === undefined || options.originAllowed(origin)) {
      next();
      return;
    }
    sendProblem(
      response,
      toProblem(
        {
          code: "PERMISSION_DENIED",
          message: `Origin ${origin} is not allowed; add it to CONTEXT_HUB_ALLOWED_ORIGINS`,
        },
        403,
      ),
    );
  });

  // Public by design: the document describes the API, not anyone's data.
  router.get("/openapi.json", (_request, response) => {
    response.type("application/json").send(options.openApiDocument);
  });

  const context = (principal: Principal): ToolContext => ({
    principal,
    clients: gatewayClientsFor(options.peers),
    peers: options.peers,
    writePath: options.writePath,
  });

  for (const operation of operations) {
    const { tool } = operation;
    const cost = tool.annotations.readOnlyHint ? { read: 1 } : { write: 1 };

    // Scope first, then the budget: a call the caller may never make costs it nothing.
    const admit = (_request: Request, response: Response, next: NextFunction) => {
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
      const verdict = options.rateLimiter.takeAll(rateKeyOf(principal), cost);
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

    const handle = async (request: Request, response: Response) => {
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
          const ifNoneMatch = request.header("if-none-match");
          if (
            operation.method === "get" &&
            ifNoneMatch !== undefined &&
            ifNoneMatch.split(",").some((tag) => tag.trim() === "*" || tag.trim().replace(/^W\//, "") === etag)
          ) {
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
        sendError(response, error, logger, failedPrecondition);
        restCalls.inc({ operation: operation.operationId, status: String(response.statusCode) });
      }
    };

    const chain: RequestHandler[] = [options.authenticate, admit];
    if (operation.argumentsIn === "body") chain.push(options.parseBody);
    router[operation.method](expressPath(operation.path), ...chain, (request: Request, response: Response) => {
      void handle(request, response);
    });
  }

  // A known path asked with a method it does not take: 405 with the methods it does.
  const methods = new Map<string, string[]>();
  for (const operation of operations)
    methods.set(operation.path, [...(methods.get(operation.path) ?? []), operation.method.toUpperCase()]);
  for (const [path, allowed] of methods) {
    router.all(expressPath(path), (request: Request, response: Response) => {
      response.setHeader("allow", allowed.join(", "));
      sendProblem(
        response,
        toProblem(
          { code: "METHOD_NOT_ALLOWED", message: `${request.path} takes ${allowed.join(", ")}, not ${request.method}` },
          405,
        ),
      );
    });
  }

  router.use((request: Request, response: Response) => {
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
  });

  // Body parser failures, as problems.
  router.use((error: { type?: string } & Error, _request: Request, response: Response, next: NextFunction) => {
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
  });

  return router;
}
