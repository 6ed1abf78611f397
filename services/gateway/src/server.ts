// The gateway's HTTP transport: /mcp (stateless Streamable HTTP), the REST API (/api/v1), the web console (/console), artifact downloads, health, readiness and metrics.
import express, { type NextFunction, type Request, type Response } from "express";
import {
  ContextHubError,
  counter,
  isLoopbackHost,
  isLoopbackUrl,
  metricsRegistry,
  newRequestId,
  requestIdHeader,
  runWithRequestContext,
  toClientRequestId,
  type Logger,
} from "@context-hub/common";
import { createArtifactDownload } from "./artifact-download.js";
import { createConsoleRouter } from "./console.js";
import { createRestRouter, openApiDocumentOf, openApiResource } from "./rest/rest-router.js";
import { sendProblem, toProblem } from "./rest/problem.js";
import { gatewayClientsFor } from "./clients/gateway-clients.js";
import type { Peers } from "./clients/peers.js";
import type { GatewayConfig } from "./config.js";
import { calledTool } from "./json-rpc-messages.js";
import { toolsNeededFor } from "./mcp/called-tool.js";
import { countRateLimitedCall, createMcpServer } from "./mcp/create-mcp-server.js";
import { createModernEndpoint } from "./mcp/modern-http.js";
import { createConnectionToolsets, toolsetsHeader, toolsetsQueryParameter } from "./mcp/connection-toolsets.js";
import { toolFailure } from "./mcp/tool-result.js";
import { refuseMalformedParams } from "./mcp/request-params.js";
import { readPost, StatelessHttpTransport } from "./mcp/stateless-http-transport.js";
import { installQuickSdkTypeGuards } from "./mcp/sdk-type-guards.js";
import type { ToolDefinition } from "./mcp/tool-definition.js";
import { challengeFor, type AuthFailure, type Authenticator } from "./auth/authenticate.js";
import type { ProtectedResource } from "./auth/protected-resource.js";
import { scopeRefusal } from "./auth/scope-check.js";
import { createRateLimiter, type RateLimiter, type RateVerdict } from "./rate-limit.js";
import { costOf, isToolCallRequest, overBudget, rateKeyOf, throttleKeyOf } from "./metering.js";
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

/** The header that echoes the caller's own request id (sanitised) beside the id this server gave the request. */
const clientRequestIdResponseHeader = "x-client-request-id";

/** How many client addresses the failed-authentication throttle remembers (least recently used are forgotten first). */
const maxThrottledAddresses = 100_000;

const authThrottled = counter(
  "contexthub_auth_throttled_total",
  "Requests refused before authentication because their client address failed too often.",
  [],
);
const rateLimited = counter(
  "contexthub_rate_limited_total",
  "POSTs to /mcp refused for the caller's rate budget, by budget.",
  ["budget"],
);

const jsonRpcError = (code: number, message: string, requestId: string) => ({
  jsonrpc: "2.0",
  error: { code, message, data: { request_id: requestId } },
  id: null,
});

/** Whether to answer with one JSON body instead of an SSE stream: JSON unless the client prefers event streams. */
function prefersJson(accept: string): boolean {
  const json = accept.indexOf("application/json");
  const sse = accept.indexOf("text/event-stream");
  if (json < 0) return false;
  return sse < 0 || json < sse;
}

/** How one face of the gateway answers a request it refuses before running anything. */
interface Refusals {
  refuse(response: Response, failure: AuthFailure): void;
  tooMany(response: Response, retryAfterSeconds: number, message: string): void;
}

/** Refusals as the REST face's problem details. */
function restRefusals(protectedResource: ProtectedResource | undefined): Refusals {
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

/** The express application of the gateway. */
export function createHttpApp(options: HttpAppOptions): express.Express {
  const { config, peers, logger } = options;
  installQuickSdkTypeGuards();
  const app = express();
  app.disable("x-powered-by");
  // Behind trusted proxies the client address comes from X-Forwarded-For; otherwise it is the TCP peer.
  app.set("trust proxy", config.trustedProxies.length > 0 ? config.trustedProxies : false);

  // The request id is always this server's: a caller's X-Request-Id is kept apart, labelled as the caller's, so it can correlate but never impersonate another request in logs or the audit chain.
  app.use((request: Request, response: Response, next: NextFunction) => {
    const requestId = newRequestId();
    const clientRequestId = toClientRequestId(request.header(requestIdHeader));
    response.setHeader(requestIdHeader, requestId);
    if (clientRequestId !== undefined) response.setHeader(clientRequestIdResponseHeader, clientRequestId);
    response.locals.requestId = requestId;
    runWithRequestContext({ requestId, clientRequestId }, next);
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

  // A client narrows the deployment's toolsets per connection; a tool outside them is as unknown as a disabled one.
  const connectionTools = createConnectionToolsets(config.toolsets, options.tools);
  const refuse = (response: Response, failure: AuthFailure) => {
    if (failure.status !== 503)
      response.setHeader("www-authenticate", challengeFor(failure, protectedResource?.metadataUrl));
    response
      .status(failure.status)
      .json(
        jsonRpcError(failure.status === 503 ? -32603 : -32001, failure.description, String(response.locals.requestId)),
      );
  };

  // Browsers may only reach /mcp, /artifacts and /api/v1 from allowed origins (DNS-rebinding protection).
  const originAllowed = (origin: string) =>
    config.allowedOrigins.includes(origin) || (isLoopbackUrl(origin) && isLoopbackHost(config.host));
  app.use(["/mcp", "/artifacts"], (request: Request, response: Response, next: NextFunction) => {
    const origin = request.header("origin");
    if (origin === undefined || originAllowed(origin)) {
      next();
      return;
    }
    response
      .status(403)
      .json(
        jsonRpcError(
          -32000,
          `Origin ${origin} is not allowed; add it to CONTEXT_HUB_ALLOWED_ORIGINS`,
          String(response.locals.requestId),
        ),
      );
  });

  const tooMany = (response: Response, retryAfterSeconds: number, message: string) => {
    response.setHeader("retry-after", String(retryAfterSeconds));
    response.status(429).json(jsonRpcError(-32000, message, String(response.locals.requestId)));
  };

  // Failed authentications are counted per client address, and an address over its budget is refused before its
  // credential is looked at: guessing keys costs no store lookups, and a flood of bad tokens no signature checks.
  const guesses = createRateLimiter({ failure: config.rateLimits.authFailures }, undefined, maxThrottledAddresses);
  const authOn = config.auth.methods.length > 0;

  // Authentication comes first: no tool runs, and no body is even parsed, for a request without a verified principal.
  // `refusals` answers in the face's own terms: JSON-RPC errors on /mcp, problem details on /api/v1.
  const authenticateAnswering =
    (refusals: Refusals) => async (request: Request, response: Response, next: NextFunction) => {
      const address = throttleKeyOf(request.ip ?? request.socket.remoteAddress ?? "unknown");
      if (authOn) {
        // Taken up front and given back on success, so concurrent guesses cannot all slip past one check.
        const verdict = guesses.take(address, "failure");
        if (!verdict.ok) {
          authThrottled.inc();
          refusals.tooMany(
            response,
            verdict.retryAfterSeconds,
            `Too many failed authentications from ${address}: retry in ${verdict.retryAfterSeconds} s`,
          );
          return;
        }
      }
      const outcome = await options.authenticator.authenticate({
        authorization: request.header("authorization"),
        apiKey: request.header("x-api-key"),
      });
      // An identity provider that did not answer is not the caller's failure.
      if (authOn && (outcome.ok || outcome.failure.status === 503)) guesses.refund(address, "failure");
      if (!outcome.ok) {
        refusals.refuse(response, outcome.failure);
        return;
      }
      response.locals.principal = outcome.principal;
      next();
    };

  const authenticate = authenticateAnswering({ refuse, tooMany });

  // The body limit follows the caller's scopes: only a writer needs room for text and images.
  const parseWriteBody = express.json({ limit: config.maxBodyBytes });
  const parseReadBody = express.json({ limit: config.maxReadBodyBytes });
  const parseBody = (request: Request, response: Response, next: NextFunction) => {
    const writer = (response.locals.principal as Principal).scopes.includes("context:write");
    response.locals.writer = writer;
    (writer ? parseWriteBody : parseReadBody)(request, response, next);
  };

  const writeTools = new Set(options.tools.filter((tool) => !tool.annotations.readOnlyHint).map((tool) => tool.name));

  /**
   * Answers a POST over the caller's budget, having run none of it. A POST
   * of tool calls only gets, for each call, the RATE_LIMITED tool result a
   * model can read and act on; anything else gets 429. Both carry
   * Retry-After.
   */
  const refuseOverBudget = (
    request: Request,
    response: Response,
    messages: readonly unknown[],
    verdict: Extract<RateVerdict, { ok: false }>,
  ) => {
    rateLimited.inc({ budget: verdict.name });
    const { message, remedy } = overBudget(verdict);
    response.setHeader("retry-after", String(verdict.retryAfterSeconds));
    const calls = messages.filter(isToolCallRequest);
    if (calls.length === 0 || calls.length < messages.length) {
      response.status(429).json(jsonRpcError(-32000, `RATE_LIMITED: ${message}`, String(response.locals.requestId)));
      return;
    }
    const error = new ContextHubError("RATE_LIMITED", message, {
      remedy,
      details: { retry_after_seconds: verdict.retryAfterSeconds },
    });
    const answers = calls.map((call) => {
      countRateLimitedCall(calledTool(call) ?? "unknown");
      return { jsonrpc: "2.0", id: call.id, result: toolFailure(error, logger) };
    });
    response.status(200).json(Array.isArray(request.body) ? answers : answers[0]);
  };

  // The REST API's document, built once: served at /api/v1/openapi.json and as an MCP resource to every reader.
  const openApiDocument = openApiDocumentOf(options.tools, options.version);
  const documents = [openApiResource(openApiDocument)];

  // Revision 2026-07-28 (no handshake) is answered on the same /mcp by the SDK v2; everything else by the 2025 server below.
  const modern = createModernEndpoint(
    {
      peers,
      writePath: options.writePath,
      logger,
      version: options.version,
      instructions: config.instructions,
      documents,
    },
    logger,
  );

  app.post("/mcp", authenticate, parseBody, async (request: Request, response: Response) => {
    const principal = response.locals.principal as Principal;
    // Metered as soon as the body is parsed, before it is checked or run: every message, of every method, counts,
    // and so does a malformed one.
    const messages: unknown[] = Array.isArray(request.body) ? (request.body as unknown[]) : [request.body];
    const verdict = options.rateLimiter.takeAll(rateKeyOf(principal), costOf(messages, writeTools));
    if (!verdict.ok) {
      refuseOverBudget(request, response, messages, verdict);
      return;
    }
    const connection = connectionTools({
      query: request.query[toolsetsQueryParameter],
      header: request.header(toolsetsHeader),
    });
    if (!connection.ok) {
      response.status(400).json(jsonRpcError(-32000, connection.message, String(response.locals.requestId)));
      return;
    }
    const scopeFailure = scopeRefusal(request.body, principal, connection.toolScopes);
    if (scopeFailure !== undefined) {
      refuse(response, scopeFailure);
      return;
    }
    const requestId = String(response.locals.requestId);
    const isJson = typeof request.is("application/json") === "string";
    if (isJson && (await modern.accepts(request))) {
      try {
        await modern.serve(
          request,
          response,
          { principal, tools: toolsNeededFor(request.body, connection.tools) },
          requestId,
        );
      } catch (error) {
        logger.error({ err: error }, "MCP request failed");
        if (!response.headersSent) response.status(500).json(jsonRpcError(-32603, "Internal error", requestId));
        else if (!response.writableEnded) response.end();
      }
      return;
    }
    const post = readPost(request.body, isJson, request.headers);
    if (!post.ok) {
      response.status(post.refusal.status).json(jsonRpcError(post.refusal.code, post.refusal.message, requestId));
      return;
    }
    const server = createMcpServer({
      principal,
      peers,
      writePath: options.writePath,
      tools: toolsNeededFor(request.body, connection.tools),
      logger,
      version: options.version,
      instructions: config.instructions,
      documents,
    });
    const transport = new StatelessHttpTransport(response, { stream: !prefersJson(request.header("accept") ?? "") });
    response.on("close", () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      refuseMalformedParams(transport, requestId, (error) =>
        logger.warn({ err: error }, "could not answer a request with malformed params"),
      );
      transport.deliver(post.messages, request.headers);
    } catch (error) {
      logger.error({ err: error }, "MCP request failed");
      if (!response.headersSent) response.status(500).json(jsonRpcError(-32603, "Internal error", requestId));
      else if (!response.writableEnded) response.end();
    }
  });

  const methodNotAllowed = (_request: Request, response: Response) => {
    response.setHeader("allow", "POST");
    response
      .status(405)
      .json(
        jsonRpcError(
          -32000,
          "Method not allowed: this server is stateless; send JSON-RPC requests with POST",
          String(response.locals.requestId),
        ),
      );
  };
  // Downloads are metered as one read each, whatever their size: the store reads them in bounded pieces.
  const download = createArtifactDownload(gatewayClientsFor(peers).artifacts, logger);
  app.get("/artifacts/:sha256", authenticate, async (request: Request, response: Response) => {
    const verdict = options.rateLimiter.takeAll(rateKeyOf(response.locals.principal as Principal), { read: 1 });
    if (!verdict.ok) {
      rateLimited.inc({ budget: verdict.name });
      tooMany(response, verdict.retryAfterSeconds, `RATE_LIMITED: ${overBudget(verdict).message}`);
      return;
    }
    await download(request, response);
  });

  app.use(
    "/api/v1",
    createRestRouter({
      peers,
      writePath: options.writePath,
      logger,
      tools: options.tools,
      rateLimiter: options.rateLimiter,
      authenticate: authenticateAnswering(restRefusals(protectedResource)),
      parseBody,
      originAllowed,
      openApiDocument,
    }),
  );

  // The web console: static files and its sign-in settings, no credential needed; its API calls are authenticated like any other.
  app.use("/console", createConsoleRouter(config.auth.oidc));

  app.get("/mcp", methodNotAllowed);
  app.delete("/mcp", methodNotAllowed);

  // Body parser failures: a clear JSON-RPC error instead of an HTML page.
  app.use(
    (error: { type?: string; status?: number } & Error, _request: Request, response: Response, next: NextFunction) => {
      if (response.headersSent) {
        next(error);
        return;
      }
      const requestId = String(response.locals.requestId);
      // A body that could not be parsed still cost the caller one message; over budget, the answer is 429.
      const caller = response.locals.principal as Principal | undefined;
      if (caller !== undefined && (error.type === "entity.too.large" || error.type === "entity.parse.failed")) {
        const verdict = options.rateLimiter.takeAll(rateKeyOf(caller), { read: 1 });
        if (!verdict.ok) {
          rateLimited.inc({ budget: verdict.name });
          tooMany(response, verdict.retryAfterSeconds, `RATE_LIMITED: ${overBudget(verdict).message}`);
          return;
        }
      }
      if (error.type === "entity.too.large") {
        const message =
          response.locals.writer === true
            ? `Request body exceeds ${config.maxBodyBytes} bytes, the largest write this server accepts`
            : `Request body exceeds ${config.maxReadBodyBytes} bytes, the limit for a credential without context:write`;
        response.status(413).json(jsonRpcError(-32600, message, requestId));
      } else if (error.type === "entity.parse.failed") {
        response.status(400).json(jsonRpcError(-32700, "Parse error: the body is not valid JSON", requestId));
      } else {
        logger.error({ err: error }, "request failed");
        response.status(error.status ?? 500).json(jsonRpcError(-32603, "Internal error", requestId));
      }
    },
  );

  return app;
}
