// The gateway's HTTP transport: /mcp (stateless Streamable HTTP), health, readiness and metrics.
import express, { type NextFunction, type Request, type Response } from "express";
import { isLoopbackHost, isLoopbackUrl, metricsRegistry, newRequestId, requestIdHeader, runWithRequestContext, type Logger } from "@context-hub/common";
import type { Peers } from "./clients/peers.js";
import type { GatewayConfig } from "./config.js";
import { toolsNeededFor } from "./mcp/called-tool.js";
import { createMcpServer } from "./mcp/create-mcp-server.js";
import { refuseMalformedParams } from "./mcp/request-params.js";
import { readPost, StatelessHttpTransport } from "./mcp/stateless-http-transport.js";
import { installQuickSdkTypeGuards } from "./mcp/sdk-type-guards.js";
import type { ToolDefinition } from "./mcp/tool-definition.js";
import { challengeFor, type AuthFailure, type Authenticator } from "./auth/authenticate.js";
import type { ProtectedResource } from "./auth/protected-resource.js";
import { scopeRefusal } from "./auth/scope-check.js";
import type { RateLimiter } from "./rate-limit.js";
import type { Principal } from "./principal.js";
import type { WritePath } from "./write-path.js";
import type { EmbeddingSpaceCheckState } from "./embedding-space-check.js";

export interface HttpAppOptions {
  config: GatewayConfig;
  peers: Peers;
  writePath: WritePath;
  authenticator: Authenticator;
  /** The tools this deployment offers (disabled ones already removed). */
  tools: readonly ToolDefinition[];
  rateLimiter: RateLimiter;
  /** Present when OAuth (OIDC) is on: the RFC 9728 metadata to serve and to name in challenges. */
  protectedResource: ProtectedResource | undefined;
  logger: Logger;
  version: string;
  /** The start-up embedding space check's verdict so far; the gateway is ready only once it passed. */
  embeddingSpaceCheck?: () => EmbeddingSpaceCheckState;
}

const jsonRpcError = (code: number, message: string, requestId: string) => ({ jsonrpc: "2.0", error: { code, message, data: { request_id: requestId } }, id: null });

/** Whether to answer with one JSON body instead of an SSE stream: JSON unless the client prefers event streams. */
function prefersJson(accept: string): boolean {
  const json = accept.indexOf("application/json");
  const sse = accept.indexOf("text/event-stream");
  if (json < 0) return false;
  return sse < 0 || json < sse;
}

/** The express application of the gateway. */
export function createHttpApp(options: HttpAppOptions): express.Express {
  const { config, peers, logger } = options;
  installQuickSdkTypeGuards();
  const app = express();
  app.disable("x-powered-by");

  app.use((request: Request, response: Response, next: NextFunction) => {
    const incoming = request.header(requestIdHeader);
    const requestId = incoming !== undefined && /^[\w.:-]{1,128}$/.test(incoming) ? incoming : newRequestId();
    response.setHeader(requestIdHeader, requestId);
    response.locals.requestId = requestId;
    runWithRequestContext({ requestId }, next);
  });

  app.get("/healthz", (_request, response) => {
    response.json({ status: "ok" });
  });

  app.get("/readyz", async (_request, response) => {
    const [store, embedder] = await Promise.all([peers.store.isServing(), peers.embedder.isServing()]);
    const check = options.embeddingSpaceCheck?.() ?? { state: "passed" };
    const ready = store && embedder && check.state === "passed";
    response.status(ready ? 200 : 503).json({
      status: ready ? "ready" : "not ready",
      store,
      embedder,
      embedding_space: check.state,
      ...(check.state === "passed" ? {} : { embedding_space_reason: check.reason }),
    });
  });

  app.get("/metrics", async (_request, response) => {
    response.setHeader("content-type", metricsRegistry.contentType);
    response.send(await metricsRegistry.metrics());
  });

  const { protectedResource } = options;
  if (protectedResource !== undefined) {
    // Public by design (RFC 9728): any client, including browser-based ones, reads it to find the issuer.
    app.get(protectedResource.metadataPaths, (_request, response) => {
      response.setHeader("access-control-allow-origin", "*");
      response.setHeader("cache-control", "public, max-age=3600");
      response.json(protectedResource.document);
    });
  }

  const toolScopes = new Map(options.tools.map((tool) => [tool.name, tool.scope]));
  const refuse = (response: Response, failure: AuthFailure) => {
    if (failure.status !== 503) response.setHeader("www-authenticate", challengeFor(failure, protectedResource?.metadataUrl));
    response.status(failure.status).json(jsonRpcError(failure.status === 503 ? -32603 : -32001, failure.description, String(response.locals.requestId)));
  };

  // Browsers may only reach /mcp from allowed origins (DNS-rebinding protection).
  app.use("/mcp", (request: Request, response: Response, next: NextFunction) => {
    const origin = request.header("origin");
    if (origin === undefined || config.allowedOrigins.includes(origin) || (isLoopbackUrl(origin) && isLoopbackHost(config.host))) {
      next();
      return;
    }
    response.status(403).json(jsonRpcError(-32000, `Origin ${origin} is not allowed; add it to CONTEXT_HUB_ALLOWED_ORIGINS`, String(response.locals.requestId)));
  });

  // Authentication comes first: no tool runs, and no body is even parsed, for a request without a verified principal.
  const authenticate = async (request: Request, response: Response, next: NextFunction) => {
    const outcome = await options.authenticator.authenticate({ authorization: request.header("authorization"), apiKey: request.header("x-api-key") });
    if (!outcome.ok) {
      refuse(response, outcome.failure);
      return;
    }
    response.locals.principal = outcome.principal;
    next();
  };

  app.post("/mcp", authenticate, express.json({ limit: config.maxBodyBytes }), async (request: Request, response: Response) => {
    const principal = response.locals.principal as Principal;
    const scopeFailure = scopeRefusal(request.body, principal, toolScopes);
    if (scopeFailure !== undefined) {
      refuse(response, scopeFailure);
      return;
    }
    const requestId = String(response.locals.requestId);
    const post = readPost(request.body, typeof request.is("application/json") === "string", request.headers);
    if (!post.ok) {
      response.status(post.refusal.status).json(jsonRpcError(post.refusal.code, post.refusal.message, requestId));
      return;
    }
    const server = createMcpServer({
      principal,
      peers,
      writePath: options.writePath,
      tools: toolsNeededFor(request.body, options.tools),
      rateLimiter: options.rateLimiter,
      logger,
      version: options.version,
      instructions: config.instructions,
    });
    const transport = new StatelessHttpTransport(response, { stream: !prefersJson(request.header("accept") ?? "") });
    response.on("close", () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      refuseMalformedParams(transport, requestId, (error) => logger.warn({ err: error }, "could not answer a request with malformed params"));
      transport.deliver(post.messages, request.headers);
    } catch (error) {
      logger.error({ err: error }, "MCP request failed");
      if (!response.headersSent) response.status(500).json(jsonRpcError(-32603, "Internal error", requestId));
      else if (!response.writableEnded) response.end();
    }
  });

  const methodNotAllowed = (_request: Request, response: Response) => {
    response.setHeader("allow", "POST");
    response.status(405).json(jsonRpcError(-32000, "Method not allowed: this server is stateless; send JSON-RPC requests with POST", String(response.locals.requestId)));
  };
  app.get("/mcp", methodNotAllowed);
  app.delete("/mcp", methodNotAllowed);

  // Body parser failures: a clear JSON-RPC error instead of an HTML page.
  app.use((error: { type?: string; status?: number } & Error, _request: Request, response: Response, next: NextFunction) => {
    if (response.headersSent) {
      next(error);
      return;
    }
    const requestId = String(response.locals.requestId);
    if (error.type === "entity.too.large") {
      response.status(413).json(jsonRpcError(-32600, `Request body exceeds ${config.maxBodyBytes} bytes`, requestId));
    } else if (error.type === "entity.parse.failed") {
      response.status(400).json(jsonRpcError(-32700, "Parse error: the body is not valid JSON", requestId));
    } else {
      logger.error({ err: error }, "request failed");
      response.status(error.status ?? 500).json(jsonRpcError(-32603, "Internal error", requestId));
    }
  });

  return app;
}
