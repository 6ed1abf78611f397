// /mcp for protocol revision 2026-07-28: which POSTs belong to it, and serving them through the SDK v2's HTTP handler.
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import type { Request, Response } from "express";
import {
  createMcpHandler,
  InMemoryServerEventBus,
  isLegacyRequest,
  type McpHttpHandler,
  type McpServerFactory,
} from "@modelcontextprotocol/server";
import { SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import type { Logger } from "@context-hub/common";
import type { McpServerOptions } from "./create-mcp-server.js";
import { createModernMcpServer } from "./modern-mcp-server.js";
import { paramsProblem } from "./request-params.js";
import { toRequestError } from "./request-errors.js";
import { openWatch, type NotificationStreams } from "./resource-subscriptions.js";
import { resourceScope } from "./resources.js";
import type { ResourceWatch } from "../clients/resource-watch-client.js";

/** The `_meta` key by which a 2026-07-28 request claims its revision (there is no handshake to remember it by). */
const protocolVersionKey = "io.modelcontextprotocol/protocolVersion";

/** Headers that describe one HTTP hop or the raw body, which the web request handed to the SDK does not carry. */
const hopHeaders = new Set(["connection", "content-length", "transfer-encoding", "keep-alive", "upgrade", "expect"]);

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null;

/** Whether a JSON-RPC message carries the per-request envelope claim of a revision without handshake. */
function claimsEnvelope(message: unknown): boolean {
  if (!isObject(message) || !isObject(message.params)) return false;
  const meta = message.params._meta;
  return isObject(meta) && protocolVersionKey in meta;
}

/** The parts of the per-request server's options that come with each request; the rest are the gateway's. */
export type PerRequestServerOptions = Pick<McpServerOptions, "principal" | "tools">;

/** The 2026-07-28 side of /mcp. */
export interface ModernEndpoint {
  /**
   * Whether a POST (its body already parsed as JSON) is for the 2026-07-28
   * revision, as the SDK v2 classifies it (`isLegacyRequest`): a POST whose
   * messages carry the `_meta` envelope claim always is; one without the
   * claim whose `MCP-Protocol-Version` no 2025 client sends is left to the
   * SDK's classification; anything else (every 2025 client's POST) is not.
   */
  accepts(request: Request): Promise<boolean>;
  /**
   * Answers a 2026-07-28 POST for an authenticated caller with a fresh server
   * (no state is kept between requests). `requestId` is the gateway's id for
   * the HTTP request, carried by the errors the gateway itself answers.
   */
  serve(request: Request, response: Response, perRequest: PerRequestServerOptions, requestId: string): Promise<void>;
  close(): Promise<void>;
}

/** The web request the SDK's handler reads: the POST's headers, its body given separately as already parsed. */
function toWebRequest(request: Request, signal?: AbortSignal): globalThis.Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || hopHeaders.has(name)) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  return new globalThis.Request(new URL(request.originalUrl, "http://context-hub.invalid"), {
    method: "POST",
    headers,
    ...(signal === undefined ? {} : { signal }),
  });
}

/** The resource URIs a `subscriptions/listen` asks to hear about (its filter's `resourceSubscriptions`), as given. */
function requestedUris(body: unknown): string[] {
  if (!isObject(body) || !isObject(body.params) || !isObject(body.params.notifications)) return [];
  const uris = body.params.notifications.resourceSubscriptions;
  return Array.isArray(uris) ? uris.filter((uri): uri is string => typeof uri === "string") : [];
}

/** Writes the SDK's web response on Node's: one JSON body, or an event stream relayed as it is produced. */
export async function sendWebResponse(answer: globalThis.Response, response: Response): Promise<void> {
  response.status(answer.status);
  answer.headers.forEach((value, name) => response.setHeader(name, value));
  if (answer.body === null) {
    response.end();
    return;
  }
  if ((answer.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
    response.setHeader("x-accel-buffering", "no");
    response.flushHeaders();
    await pipeline(Readable.fromWeb(answer.body as NodeReadableStream<Uint8Array>), response);
    return;
  }
  const body = Buffer.from(await answer.arrayBuffer());
  response.setHeader("content-length", body.length);
  response.end(body);
}

/** The request's caller, as the SDK hands it to the server factory. */
const authInfoOf = (perRequest: PerRequestServerOptions) => ({
  token: "",
  clientId: perRequest.principal.subject,
  scopes: [...perRequest.principal.scopes],
  extra: { contextHub: perRequest },
});

/** What serving a `subscriptions/listen` needs of the endpoint. */
interface Listening {
  factory: McpServerFactory;
  onerror: (error: Error) => void;
  peers: McpServerOptions["peers"];
  logger: Logger;
  streams: NotificationStreams;
}

/**
 * A `subscriptions/listen`: the store's watch of the URIs it names is put
 * in place first (so a change committed once the client holds the
 * acknowledgement is reported), then a handler of its own, on a bus only
 * this caller's watch publishes to, keeps the stream open until the client
 * cancels or the gateway shuts down. The SDK acknowledges the subset of
 * the filter the server honours: resource subscriptions, for a caller who
 * may read.
 */
async function serveListen(
  listening: Listening,
  request: Request,
  response: Response,
  perRequest: PerRequestServerOptions,
  id: unknown,
): Promise<void> {
  const { factory, onerror, peers, logger, streams } = listening;
  const gone = new AbortController();
  response.on("close", () => gone.abort());
  const uris = requestedUris(request.body);
  let watch: ResourceWatch | undefined;
  if (uris.length > 0 && perRequest.principal.scopes.includes(resourceScope)) {
    try {
      watch = await openWatch(peers, perRequest.principal, { uris }, gone.signal);
    } catch (error) {
      if (gone.signal.aborted) return;
      const refusal = toRequestError(error, logger, "subscriptions/listen");
      response.status(200).json({ jsonrpc: "2.0", id, error: { code: refusal.code, message: refusal.message } });
      return;
    }
  }
  const bus = new InMemoryServerEventBus(onerror);
  const listen = createMcpHandler(factory, { legacy: "reject", onerror, bus, maxSubscriptions: 1 });
  const end = () => {
    gone.abort();
    void listen.close();
  };
  const forget = streams.add("listen", end);
  if (watch !== undefined) {
    const changes = watch.changes;
    // The stream ends with its watch: a store that went away ends it, and the client listens again.
    void (async () => {
      for await (const uri of changes) bus.publish({ kind: "resource_updated", uri });
    })()
      .catch((error: unknown) => {
        if (!gone.signal.aborted) logger.warn({ err: error }, "a subscriptions/listen watch failed; the stream ends");
      })
      .finally(end);
  }
  try {
    const answer = await listen.fetch(toWebRequest(request, gone.signal), {
      parsedBody: request.body,
      authInfo: authInfoOf(perRequest),
    });
    await sendWebResponse(answer, response);
  } finally {
    forget();
    end();
  }
}

/**
 * The 2026-07-28 side of /mcp, served by the SDK v2 (`createMcpHandler`,
 * strict: it answers only that revision, 2025 traffic staying with the
 * gateway's own transport). It validates the `MCP-Protocol-Version`,
 * `Mcp-Method` and `Mcp-Name` headers against the body (400, -32020
 * HeaderMismatch), answers `server/discover`, and marks results with
 * `resultType` and lists with `ttlMs`/`cacheScope`. Authentication, the
 * Origin check, rate budgets and the scope check have all run before it, as
 * for 2025 requests.
 */
export function createModernEndpoint(
  shared: Omit<McpServerOptions, keyof PerRequestServerOptions>,
  logger: Logger,
  streams: NotificationStreams,
): ModernEndpoint {
  const factory: McpServerFactory = (context) => {
    const perRequest = context.authInfo?.extra?.contextHub as PerRequestServerOptions | undefined;
    if (perRequest === undefined)
      throw new Error("a 2026-07-28 request reached the MCP handler without an authenticated caller");
    return createModernMcpServer({ ...shared, ...perRequest });
  };
  const onerror = (error: Error) => logger.debug({ err: error }, "2026-07-28 request refused or failed");
  const handler: McpHttpHandler = createMcpHandler(factory, { legacy: "reject", onerror });
  const legacyVersions = new Set(SUPPORTED_PROTOCOL_VERSIONS);
  const listening: Listening = { factory, onerror, peers: shared.peers, logger, streams };

  return {
    async accepts(request) {
      const header = request.header("mcp-protocol-version");
      const body: unknown = request.body;
      const messages: unknown[] = Array.isArray(body) ? body : [body];
      const claimed = messages.some(claimsEnvelope);
      if (!claimed)
        return (
          header !== undefined && !legacyVersions.has(header) && !(await isLegacyRequest(toWebRequest(request), body))
        );
      // The SDK sends every POST with the claim to its modern path (which answers even an unsupported revision there):
      // no need to build a web request to be told so.
      return true;
    },
    async serve(request, response, perRequest, requestId) {
      // Malformed tools/call params get the same plain -32602 as on the 2025 side, not the SDK's raw Zod issue list.
      const body: unknown = request.body;
      if (isObject(body) && body.method === "tools/call") {
        const problem = paramsProblem({ method: "tools/call", params: body.params as never });
        if (problem !== undefined) {
          response.status(200).json({
            jsonrpc: "2.0",
            id: body.id ?? null,
            error: { code: -32602, message: `Invalid params: ${problem}`, data: { request_id: requestId } },
          });
          return;
        }
      }
      if (isObject(body) && body.method === "subscriptions/listen") {
        await serveListen(listening, request, response, perRequest, body.id ?? null);
        return;
      }
      // A client that goes away cancels its request (the revision's cancellation on Streamable HTTP).
      const gone = new AbortController();
      response.on("close", () => {
        if (!response.writableFinished) gone.abort();
      });
      const answer = await handler.fetch(toWebRequest(request, gone.signal), {
        parsedBody: request.body,
        authInfo: authInfoOf(perRequest),
      });
      await sendWebResponse(answer, response);
    },
    close: () => handler.close(),
  };
}
