/**
 * Resource subscriptions, so a client hears `notifications/resources/updated`
 * when a resource it reads changes, on any replica, without the gateway
 * keeping state of its own:
 *
 * - 2025 revisions: `initialize` is answered with an `Mcp-Session-Id`; the
 *   session's `resources/subscribe` and `resources/unsubscribe` are kept by
 *   the store, and `GET /mcp` with that id opens the session's notification
 *   stream, which follows the session's subscriptions as they change. A
 *   session is never ended by the server (DELETE /mcp is 405: ending one
 *   would oblige every replica to answer its id with 404 from then on); the
 *   store keeps the subscriptions of a principal's 20 latest sessions.
 * - 2026-07-28: `subscriptions/listen` names its URIs itself (modern-http.ts).
 *
 * Either way the store decides what is reported, under the caller's access:
 * a change only while the caller may read the resource, and once when it
 * stops being readable, never for anything it could not read (invariant I-2).
 */
import { randomBytes } from "node:crypto";
import type { Request, Response } from "express";
import { gauge, type Logger } from "@context-hub/common";
import { gatewayClientsFor } from "../clients/gateway-clients.js";
import type { Peers } from "../clients/peers.js";
import type { ResourceWatch, WatchedResources } from "../clients/resource-watch-client.js";
import { jsonRpcError } from "../http-refusals.js";
import type { Principal } from "../principal.js";
import { invalidParams, McpRequestError, toRequestError } from "./request-errors.js";
import { resourceScope } from "./resources.js";

/** The header a 2025 client sends its session id back in. */
export const sessionIdHeader = "mcp-session-id";

/** A new session id: 128 random bits, hex (visible ASCII, as the transport asks). */
export const createSessionId = () => randomBytes(16).toString("hex");

/** How often an open notification stream gets a comment line, so that proxies do not time it out. */
const keepAliveMs = 15_000;

/** resources/subscribe and resources/unsubscribe of a 2025 session. */
export interface SubscriptionHandlers {
  subscribe(uri: string): Promise<Record<string, never>>;
  unsubscribe(uri: string): Promise<Record<string, never>>;
}

/**
 * The subscription handlers of a 2025 request, or undefined for a caller who
 * may not read (then no resources capability is declared at all). A request
 * without the session id issued at `initialize` is refused with -32602.
 */
export function subscriptionHandlersFor(
  principal: Principal,
  peers: Peers,
  logger: Logger,
  sessionId: string | undefined,
): SubscriptionHandlers | undefined {
  if (!principal.scopes.includes(resourceScope)) return undefined;
  const watch = gatewayClientsFor(peers).resourceWatch;
  const session = (method: string): string => {
    if (sessionId !== undefined && sessionId !== "") return sessionId;
    throw new McpRequestError(
      invalidParams,
      `${method} needs the session this server issued at initialize: send its Mcp-Session-Id header with the request`,
    );
  };
  return {
    async subscribe(uri) {
      try {
        await watch.subscribe(principal, session("resources/subscribe"), uri);
        return {};
      } catch (error) {
        throw toRequestError(error, logger, "resources/subscribe");
      }
    },
    async unsubscribe(uri) {
      try {
        await watch.unsubscribe(principal, session("resources/unsubscribe"), uri);
        return {};
      } catch (error) {
        throw toRequestError(error, logger, "resources/unsubscribe");
      }
    },
  };
}

const openStreams = gauge(
  "contexthub_mcp_notification_streams",
  "MCP notification streams open on this gateway: 2025 sessions' GET /mcp (session) and 2026-07-28 subscriptions/listen (listen).",
  ["kind"],
);

/** What a notification stream serves: a 2025 session's GET /mcp, or a 2026-07-28 subscriptions/listen. */
export type StreamKind = "session" | "listen";

/**
 * The notification streams open on this gateway, so that shutting it down
 * ends them (a client reconnects to another replica) instead of waiting for
 * them.
 */
export class NotificationStreams {
  private readonly open = new Set<() => void>();
  private closed = false;

  /**
   * Keeps `end` until it is removed by the function returned; `closeAll`
   * runs every one kept, and a stream added after it is ended at once.
   */
  add(kind: StreamKind, end: () => void): () => void {
    if (this.closed) queueMicrotask(end);
    this.open.add(end);
    openStreams.inc({ kind });
    let kept = true;
    return () => {
      if (!kept) return;
      kept = false;
      this.open.delete(end);
      openStreams.dec({ kind });
    };
  }

  get size(): number {
    return this.open.size;
  }

  closeAll(): void {
    this.closed = true;
    for (const end of [...this.open]) end();
  }
}

/**
 * Opens a watch for `principal` and waits until the store has it in place, so
 * that a change committed after this resolves is reported. Rejects with the
 * store's refusal; the watch ends when `signal` aborts.
 */
export async function openWatch(
  peers: Peers,
  principal: Principal,
  watched: WatchedResources,
  signal: AbortSignal,
): Promise<ResourceWatch> {
  const watch = gatewayClientsFor(peers).resourceWatch.watch(principal, watched, signal);
  await watch.ready;
  return watch;
}

/** An SSE frame of one JSON-RPC notification. */
const notificationFrame = (uri: string) =>
  `event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri } })}\n\n`;

/** What GET /mcp needs: the caller's connections, the open streams, and the logger. */
export interface SessionEndpointOptions {
  peers: Peers;
  streams: NotificationStreams;
  logger: Logger;
}

/** The session id of a GET, or the 400 that answers a request without one. */
function sessionOf(request: Request, response: Response): string | undefined {
  const sessionId = request.header(sessionIdHeader);
  if (sessionId !== undefined && sessionId !== "") return sessionId;
  response
    .status(400)
    .json(
      jsonRpcError(
        -32000,
        "Bad Request: GET /mcp needs the Mcp-Session-Id header this server sent with its initialize answer",
        String(response.locals.requestId),
      ),
    );
  return undefined;
}

/**
 * GET /mcp: a 2025 session's notification stream, one
 * `notifications/resources/updated` per change of a URI the session
 * subscribes to, until the client goes away or the gateway shuts down.
 */
export function createSessionStream(options: SessionEndpointOptions) {
  const { peers, streams, logger } = options;
  return async (request: Request, response: Response): Promise<void> => {
    const principal = response.locals.principal as Principal;
    if (!(request.header("accept") ?? "").includes("text/event-stream")) {
      response
        .status(406)
        .json(
          jsonRpcError(
            -32000,
            "Not Acceptable: GET /mcp opens an event stream; send Accept: text/event-stream",
            String(response.locals.requestId),
          ),
        );
      return;
    }
    const sessionId = sessionOf(request, response);
    if (sessionId === undefined) return;
    if (!principal.scopes.includes(resourceScope)) {
      // Nothing to hear without reading: the stream stays empty rather than telling the client anything.
      response
        .status(403)
        .json(
          jsonRpcError(
            -32000,
            `Forbidden: resource notifications need scope ${resourceScope}`,
            String(response.locals.requestId),
          ),
        );
      return;
    }
    const gone = new AbortController();
    const end = () => {
      gone.abort();
      if (!response.writableEnded) response.end();
    };
    response.on("close", () => gone.abort());
    let watch: ResourceWatch;
    try {
      watch = await openWatch(peers, principal, { sessionId }, gone.signal);
    } catch (error) {
      if (gone.signal.aborted) return;
      const refusal = toRequestError(error, logger, "GET /mcp");
      response
        .status(refusal.code === invalidParams ? 400 : 500)
        .json(jsonRpcError(-32000, refusal.message, String(response.locals.requestId)));
      return;
    }
    const forget = streams.add("session", end);
    response.status(200);
    response.setHeader("content-type", "text/event-stream");
    response.setHeader("cache-control", "no-cache, no-transform");
    response.setHeader("x-accel-buffering", "no");
    response.setHeader(sessionIdHeader, sessionId);
    response.flushHeaders();
    const keepAlive = setInterval(() => response.write(": keepalive\n\n"), keepAliveMs);
    keepAlive.unref();
    try {
      for await (const uri of watch.changes) response.write(notificationFrame(uri));
    } catch (error) {
      if (!gone.signal.aborted)
        logger.warn({ err: error }, "a session's notification stream failed; the client reconnects");
    } finally {
      clearInterval(keepAlive);
      forget();
      end();
    }
  };
}

/** DELETE /mcp: sessions are not ended by request (see above), which the transport answers with 405. */
export const sessionEndNotAllowed = (_request: Request, response: Response) => {
  response.setHeader("allow", "GET, POST");
  response
    .status(405)
    .json(
      jsonRpcError(
        -32000,
        "Method not allowed: sessions are not ended by request; a session's subscriptions end with resources/unsubscribe",
        String(response.locals.requestId),
      ),
    );
};
