/**
 * /mcp over HTTP. A POST is metered, narrowed to its connection's toolsets
 * and checked against the caller's scopes before any of it runs, then
 * answered by the 2026-07-28 endpoint (no handshake) or by a 2025 MCP server
 * on a stateless transport. A 2025 `initialize` is answered with a session
 * id that names nothing but the session's resource subscriptions, which the
 * store keeps: GET /mcp (resource-subscriptions.ts) opens that session's
 * notification stream, on any replica.
 */
import type { Request, Response } from "express";
import { ContextHubError, type Logger } from "@context-hub/common";
import type { AuthFailure } from "./auth/authenticate.js";
import { scopeRefusal } from "./auth/scope-check.js";
import type { Peers } from "./clients/peers.js";
import type { GatewayConfig } from "./config.js";
import { jsonRpcError, rateLimited } from "./http-refusals.js";
import { calledTool } from "./json-rpc-messages.js";
import { costOf, isToolCallRequest, overBudget, rateKeyOf } from "./metering.js";
import { toolsNeededFor } from "./mcp/called-tool.js";
import { createConnectionToolsets, toolsetsHeader, toolsetsQueryParameter } from "./mcp/connection-toolsets.js";
import { countRateLimitedCall, createMcpServer, type McpServerOptions } from "./mcp/create-mcp-server.js";
import { createModernEndpoint, type ModernEndpoint } from "./mcp/modern-http.js";
import { refuseMalformedParams } from "./mcp/request-params.js";
import { createSessionId, sessionIdHeader, type NotificationStreams } from "./mcp/resource-subscriptions.js";
import { readPost, StatelessHttpTransport } from "./mcp/stateless-http-transport.js";
import type { ToolDefinition } from "./mcp/tool-definition.js";
import { toolFailure } from "./mcp/tool-result.js";
import type { Principal } from "./principal.js";
import type { RateLimiter, RateVerdict } from "./rate-limit.js";
import type { WritePath } from "./write-path.js";

export interface McpEndpointOptions {
  config: GatewayConfig;
  peers: Peers;
  writePath: WritePath;
  /** The tools this deployment offers (disabled ones already removed). */
  tools: readonly ToolDefinition[];
  rateLimiter: RateLimiter;
  logger: Logger;
  version: string;
  /** Fixed documents every reader gets as resources (the REST API's OpenAPI document). */
  documents: NonNullable<McpServerOptions["documents"]>;
  /** How a caller without the scopes its messages need is refused, as JSON-RPC. */
  refuse: (response: Response, failure: AuthFailure) => void;
  /** The notification streams open on this gateway, ended when it shuts down. */
  streams: NotificationStreams;
}

/** Whether to answer with one JSON body instead of an SSE stream: JSON unless the client prefers event streams. */
function prefersJson(accept: string): boolean {
  const json = accept.indexOf("application/json");
  const sse = accept.indexOf("text/event-stream");
  if (json < 0) return false;
  return sse < 0 || json < sse;
}

/**
 * Answers a POST over the caller's budget, having run none of it. A POST
 * of tool calls only gets, for each call, the RATE_LIMITED tool result a
 * model can read and act on; anything else gets 429. Both carry
 * Retry-After.
 */
function refuseOverBudget(
  request: Request,
  response: Response,
  messages: readonly unknown[],
  verdict: Extract<RateVerdict, { ok: false }>,
  logger: Logger,
): void {
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
}

/** A POST admitted to run: its caller and the tools its connection offers. */
interface Admitted {
  principal: Principal;
  tools: readonly ToolDefinition[];
}

/** Answers a request that failed once its answer may have begun: a JSON-RPC error if nothing was sent, else the end. */
function answerFailure(response: Response, requestId: string, error: unknown, logger: Logger): void {
  logger.error({ err: error }, "MCP request failed");
  if (!response.headersSent) response.status(500).json(jsonRpcError(-32603, "Internal error", requestId));
  else if (!response.writableEnded) response.end();
}

/** What admitting a POST needs: the caller's budgets, the connection's toolsets, and how a refusal is answered. */
interface Gate {
  rateLimiter: RateLimiter;
  writeTools: ReadonlySet<string>;
  connectionTools: ReturnType<typeof createConnectionToolsets>;
  refuse: McpEndpointOptions["refuse"];
  logger: Logger;
}

/** Meters the POST, then checks its connection's toolsets and the caller's scopes; answers the request itself when it refuses. */
function admit(request: Request, response: Response, gate: Gate): Admitted | undefined {
  const principal = response.locals.principal as Principal;
  // Metered as soon as the body is parsed, before it is checked or run: every message, of every method, counts,
  // and so does a malformed one.
  const messages: unknown[] = Array.isArray(request.body) ? (request.body as unknown[]) : [request.body];
  const verdict = gate.rateLimiter.takeAll(rateKeyOf(principal), costOf(messages, gate.writeTools));
  if (!verdict.ok) {
    refuseOverBudget(request, response, messages, verdict, gate.logger);
    return undefined;
  }
  const connection = gate.connectionTools({
    query: request.query[toolsetsQueryParameter],
    header: request.header(toolsetsHeader),
  });
  if (!connection.ok) {
    response.status(400).json(jsonRpcError(-32000, connection.message, String(response.locals.requestId)));
    return undefined;
  }
  const scopeFailure = scopeRefusal(request.body, principal, connection.toolScopes);
  if (scopeFailure !== undefined) {
    gate.refuse(response, scopeFailure);
    return undefined;
  }
  return { principal, tools: connection.tools };
}

/** Runs the POST's messages on a 2025 MCP server of its own, over a stateless transport. */
async function serveStateless(
  request: Request,
  response: Response,
  admitted: Admitted,
  isJson: boolean,
  options: McpEndpointOptions,
): Promise<void> {
  const { config, peers, logger } = options;
  const requestId = String(response.locals.requestId);
  const post = readPost(request.body, isJson, request.headers);
  if (!post.ok) {
    response.status(post.refusal.status).json(jsonRpcError(post.refusal.code, post.refusal.message, requestId));
    return;
  }
  // A 2025 session is born at initialize; its id only keys the resource subscriptions the store keeps for it.
  const initializing = post.messages.some((message) => "method" in message && message.method === "initialize");
  const sessionId = initializing ? createSessionId() : request.header(sessionIdHeader);
  if (initializing) response.setHeader(sessionIdHeader, sessionId!);
  const server = createMcpServer({
    principal: admitted.principal,
    peers,
    writePath: options.writePath,
    tools: toolsNeededFor(request.body, admitted.tools),
    logger,
    version: options.version,
    instructions: config.instructions,
    documents: options.documents,
    // A request after initialization names its revision; without the header the specification assumes 2025-03-26.
    protocolVersion: request.header("mcp-protocol-version") ?? "2025-03-26",
    session: { id: sessionId },
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
    answerFailure(response, requestId, error, logger);
  }
}

/** The handler of POST /mcp, behind authentication and the body parser. */
export function createMcpPost(options: McpEndpointOptions): (request: Request, response: Response) => Promise<void> {
  const { config, peers, logger } = options;
  // A client narrows the deployment's toolsets per connection; a tool outside them is as unknown as a disabled one.
  const connectionTools = createConnectionToolsets(config.toolsets, options.tools);
  const writeTools = new Set(options.tools.filter((tool) => !tool.annotations.readOnlyHint).map((tool) => tool.name));
  // Revision 2026-07-28 (no handshake) is answered on the same /mcp by the SDK v2; everything else by the 2025 server below.
  const modern: ModernEndpoint = createModernEndpoint(
    {
      peers,
      writePath: options.writePath,
      logger,
      version: options.version,
      instructions: config.instructions,
      documents: options.documents,
    },
    logger,
    options.streams,
  );

  const gate: Gate = {
    rateLimiter: options.rateLimiter,
    writeTools,
    connectionTools,
    refuse: options.refuse,
    logger,
  };

  return async (request: Request, response: Response) => {
    const admitted = admit(request, response, gate);
    if (admitted === undefined) return;
    const requestId = String(response.locals.requestId);
    const isJson = typeof request.is("application/json") === "string";
    if (isJson && (await modern.accepts(request))) {
      try {
        await modern.serve(
          request,
          response,
          { principal: admitted.principal, tools: toolsNeededFor(request.body, admitted.tools) },
          requestId,
        );
      } catch (error) {
        answerFailure(response, requestId, error, logger);
      }
      return;
    }
    await serveStateless(request, response, admitted, isJson, options);
  };
}
