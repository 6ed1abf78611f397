/**
 * `/api/v1`: the gateway's REST face. Each operation runs one tool through
 * the same domain clients, scopes, rate budgets and write path as MCP. This
 * file mounts the served operations; rest-operation-handlers.ts admits and
 * runs each one, and rest-translation.ts maps HTTP (path, query, body,
 * Idempotency-Key, If-Match, If-None-Match, cursors) to tool arguments and
 * tool results back to HTTP.
 */
import express, { type NextFunction, type Request, type RequestHandler, type Response } from "express";
import type { Logger } from "@context-hub/common";
import type { Peers } from "../clients/peers.js";
import type { ToolDefinition } from "../mcp/tool-definition.js";
import type { StaticResource } from "../mcp/resources.js";
import type { RateLimiter } from "../rate-limit.js";
import type { WritePath } from "../write-path.js";
import { createOpenApiDocument } from "./openapi.js";
import type { RestOperation } from "./operation.js";
import { restOperations } from "./operations.js";
import { sendProblem, toProblem } from "./problem.js";
import {
  admitOperation,
  bodyProblems,
  methodNotAllowed,
  noOperation,
  runOperation,
} from "./rest-operation-handlers.js";

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

/** The express path of an OpenAPI path: `/entries/{id}` → `/entries/:id`. */
const expressPath = (path: string) => path.replaceAll(/\{(\w+)\}/g, ":$1");

/** Refuses a browser Origin the deployment does not allow (the same DNS-rebinding rule as /mcp). */
function checkOrigin(originAllowed: (origin: string) => boolean): RequestHandler {
  return (request: Request, response: Response, next: NextFunction) => {
    const origin = request.header("origin");
    if (origin === undefined || originAllowed(origin)) {
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
  };
}

/** The /api/v1 application, mounted by the gateway's. */
export function createRestRouter(options: RestRouterOptions): express.Express {
  const router = express();
  // ETags here are entry versions, set by the operations; express's own (a hash of the body) would differ between a
  // hidden entry's 404 and a missing one's, and answer 304 to reads that carry no version.
  router.set("etag", false);
  router.disable("x-powered-by");
  const operations = servedOperations(options.tools);
  router.use(checkOrigin(options.originAllowed));

  // Public by design: the document describes the API, not anyone's data.
  router.get("/openapi.json", (_request, response) => {
    response.type("application/json").send(options.openApiDocument);
  });

  for (const operation of operations) {
    const handle = runOperation(options, operation);
    const chain: RequestHandler[] = [options.authenticate, admitOperation(options.rateLimiter, operation)];
    if (operation.argumentsIn === "body") chain.push(options.parseBody);
    router[operation.method](expressPath(operation.path), ...chain, (request: Request, response: Response) => {
      void handle(request, response);
    });
  }

  const methods = new Map<string, string[]>();
  for (const operation of operations)
    methods.set(operation.path, [...(methods.get(operation.path) ?? []), operation.method.toUpperCase()]);
  for (const [path, allowed] of methods) router.all(expressPath(path), methodNotAllowed(allowed));
  router.use(noOperation);
  router.use(bodyProblems(options.logger));
  return router;
}
