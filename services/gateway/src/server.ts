// The gateway's HTTP transport: /mcp (stateless Streamable HTTP), the REST API (/api/v1), the web console (/console), artifact downloads, health, readiness and metrics.
import express, { type Express, type NextFunction, type Request, type Response } from "express";
import {
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
import { gatewayClientsFor } from "./clients/gateway-clients.js";
import type { Peers } from "./clients/peers.js";
import type { GatewayConfig } from "./config.js";
import { installQuickSdkTypeGuards } from "./mcp/sdk-type-guards.js";
import type { ToolDefinition } from "./mcp/tool-definition.js";
import type { Authenticator } from "./auth/authenticate.js";
import type { ProtectedResource } from "./auth/protected-resource.js";
import { createAuthentication, createBodyParser } from "./http-authentication.js";
import { jsonRpcError, jsonRpcRefusals, rateLimited, restRefusals, type Refusals } from "./http-refusals.js";
import { createMcpPost } from "./mcp-endpoint.js";
import { createSessionStream, sessionEndNotAllowed, type NotificationStreams } from "./mcp/resource-subscriptions.js";
import { searchResultsAppResource, withSearchResultsView } from "./mcp-apps.js";
import type { RateLimiter } from "./rate-limit.js";
import { overBudget, rateKeyOf } from "./metering.js";
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
  /** The notification streams open on this gateway, which its shutdown ends. */
  streams: NotificationStreams;
}

/** The header that echoes the caller's own request id (sanitised) beside the id this server gave the request. */
const clientRequestIdResponseHeader = "x-client-request-id";

/**
 * The request id is always this server's: a caller's X-Request-Id is kept apart, labelled as the caller's, so it can
 * correlate but never impersonate another request in logs or the audit chain.
 */
function assignRequestIds(app: Express): void {
  app.use((request: Request, response: Response, next: NextFunction) => {
    const requestId = newRequestId();
    const clientRequestId = toClientRequestId(request.header(requestIdHeader));
    response.setHeader(requestIdHeader, requestId);
    if (clientRequestId !== undefined) response.setHeader(clientRequestIdResponseHeader, clientRequestId);
    response.locals.requestId = requestId;
    runWithRequestContext({ requestId, clientRequestId }, next);
  });
}

/** Health, readiness and metrics, and the OAuth protected-resource metadata when OAuth is on: no credential needed. */
function addProbes(app: Express, options: HttpAppOptions): void {
  const { peers } = options;
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
}

/** Browsers may only reach /mcp, /artifacts and /api/v1 from allowed origins (DNS-rebinding protection). */
function originCheck(config: GatewayConfig): (origin: string) => boolean {
  return (origin: string) =>
    config.allowedOrigins.includes(origin) || (isLoopbackUrl(origin) && isLoopbackHost(config.host));
}

/** Refuses a browser request from an origin not allowed, as JSON-RPC. */
function refuseOtherOrigins(originAllowed: (origin: string) => boolean) {
  return (request: Request, response: Response, next: NextFunction) => {
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
  };
}

/** Body parser failures: a clear JSON-RPC error instead of an HTML page. */
function answerBodyErrors(options: HttpAppOptions, jsonRpc: Refusals) {
  const { config, logger } = options;
  return (
    error: { type?: string; status?: number } & Error,
    _request: Request,
    response: Response,
    next: NextFunction,
  ) => {
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
        jsonRpc.tooMany(response, verdict.retryAfterSeconds, `RATE_LIMITED: ${overBudget(verdict).message}`);
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
  assignRequestIds(app);
  addProbes(app, options);

  const { protectedResource } = options;
  const jsonRpc = jsonRpcRefusals(protectedResource);
  const originAllowed = originCheck(config);
  app.use(["/mcp", "/artifacts"], refuseOtherOrigins(originAllowed));

  // Authentication comes first: no tool runs, and no body is even parsed, for a request without a verified principal.
  // Each face refuses in its own terms: JSON-RPC errors on /mcp, problem details on /api/v1.
  const authenticateAnswering = createAuthentication(config, options.authenticator);
  const authenticate = authenticateAnswering(jsonRpc);
  const parseBody = createBodyParser(config);

  // The REST API's document, built once: served at /api/v1/openapi.json and as an MCP resource to every reader.
  const openApiDocument = openApiDocumentOf(options.tools, options.version);
  // With MCP Apps on, the search-results view too, and the search tools name it; off, /mcp is as without them.
  const documents = [openApiResource(openApiDocument), ...(config.mcpApps ? [searchResultsAppResource()] : [])];
  const mcpTools = config.mcpApps ? withSearchResultsView(options.tools) : options.tools;

  // A download, or opening a session's notification stream, is metered as one read.
  const meteredRead = (_request: Request, response: Response, next: NextFunction) => {
    const verdict = options.rateLimiter.takeAll(rateKeyOf(response.locals.principal as Principal), { read: 1 });
    if (verdict.ok) return next();
    rateLimited.inc({ budget: verdict.name });
    jsonRpc.tooMany(response, verdict.retryAfterSeconds, `RATE_LIMITED: ${overBudget(verdict).message}`);
  };

  app.post(
    "/mcp",
    authenticate,
    parseBody,
    createMcpPost({
      config,
      peers,
      writePath: options.writePath,
      tools: mcpTools,
      rateLimiter: options.rateLimiter,
      logger,
      version: options.version,
      documents,
      refuse: (response, failure) => jsonRpc.refuse(response, failure),
      streams: options.streams,
    }),
  );
  // A 2025 session's notification stream.
  const sessions = { peers, streams: options.streams, logger };
  app.get("/mcp", authenticate, meteredRead, createSessionStream(sessions));
  app.delete("/mcp", sessionEndNotAllowed);

  // Downloads are metered as one read each, whatever their size: the store reads them in bounded pieces.
  const download = createArtifactDownload(gatewayClientsFor(peers).artifacts, logger);
  app.get("/artifacts/:sha256", authenticate, meteredRead, download);

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

  app.use(answerBodyErrors(options, jsonRpc));

  return app;
}
