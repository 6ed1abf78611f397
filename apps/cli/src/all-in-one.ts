import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ContextHubError, type RunningService } from "@context-hub/common";
import { loadGatewayConfig, openLocalMcp, startGateway, type LocalMcp } from "@context-hub/gateway";
import { startBackends, type BackendOptions } from "./local-backends.js";
import { gatewaySocketName, storeSocketDirPrefix } from "./runtime-file.js";

export interface AllInOneOptions extends BackendOptions {
  /** Host the gateway binds; the internal services always bind loopback. */
  host?: string;
  /** Gateway port; 0 picks a free one. */
  port?: number;
  /** How long to wait for every service to report ready (models loaded, database reachable). */
  readyTimeoutMs?: number;
}

export interface AllInOne {
  /** The MCP endpoint, e.g. http://127.0.0.1:8080/mcp. */
  url: string;
  services: Record<"store" | "embedder" | "summarizer" | "reranker" | "gateway", RunningService>;
  /** Stops the gateway first (no new work), then the workers and the store. */
  close(): Promise<void>;
}

/**
 * Runs all five services in this process on the embedded default: PGlite
 * (or DATABASE_URL) with the vector graph in the store process (pgvector on
 * a server), built-in providers, auth off. They still talk to each
 * other over real gRPC on loopback, exactly as they do when deployed apart.
 */
export async function startAllInOne(options: AllInOneOptions = {}): Promise<AllInOne> {
  const env = options.env ?? process.env;
  const backends = await startBackends(options);
  const { store, embedder, summarizer, reranker } = backends.services;
  try {
    const gatewayConfig = loadGatewayConfig({
      ...env,
      GATEWAY_HOST: options.host ?? env.GATEWAY_HOST ?? "127.0.0.1",
      GATEWAY_PORT: String(options.port ?? env.GATEWAY_PORT ?? 8080),
      ...backends.addresses,
    });
    const gateway = await startGateway(gatewayConfig, backends.logger("gateway"));
    const shownHost =
      gatewayConfig.host === "0.0.0.0" || gatewayConfig.host === "::" ? "127.0.0.1" : gatewayConfig.host;
    try {
      await waitUntilReady(`http://127.0.0.1:${gateway.port}/readyz`, options.readyTimeoutMs ?? 120_000);
    } catch (error) {
      await gateway.close();
      throw error;
    }
    const url = `http://${shownHost.includes(":") ? `[${shownHost}]` : shownHost}:${gateway.port}/mcp`;
    backends.publish(url);
    let closing: Promise<void> | undefined;
    return {
      url,
      services: { store, embedder, summarizer, reranker, gateway },
      close() {
        closing ??= (async () => {
          await gateway.close();
          await backends.close();
        })();
        return closing;
      },
    };
  } catch (error) {
    await backends.close();
    throw error;
  }
}

/** Context Hub for one local user, with MCP served on this process's stdin and stdout (both revisions) instead of HTTP. */
export interface LocalHub {
  mcp: LocalMcp;
  /** With `serveSocket`, the Unix socket where the same hub also answers MCP over HTTP (path /mcp). */
  socketPath: string | undefined;
  /** Stops the MCP server (and the socket's), then the workers and the store. */
  close(): Promise<void>;
}

export interface LocalHubOptions extends Omit<AllInOneOptions, "host" | "port" | "readyTimeoutMs"> {
  /**
   * Also serve MCP over HTTP on a Unix socket in a new directory only this
   * user may enter, and publish it in the data directory's runtime file: the
   * client that launched the hub holds its stdio, and the socket lets this
   * user's other processes (the Claude Code kit's hooks, `context-hub keys`)
   * reach the same hub. Ignored when the data lives in memory; on a
   * PostgreSQL server the runtime file goes in STORE_DATA_DIR all the same.
   */
  serveSocket?: boolean;
}

/**
 * Runs the store and the model workers as `startAllInOne` does, and the
 * gateway's MCP server without an HTTP listener, for `context-hub stdio`.
 * No MCP port is opened (at most a Unix socket, see `serveSocket`); the
 * services still talk gRPC to each other on loopback.
 */
export async function startLocalHub(options: LocalHubOptions = {}): Promise<LocalHub> {
  const env = options.env ?? process.env;
  const backends = await startBackends(options);
  const socketDirectory =
    options.serveSocket === true && backends.canServeSocket
      ? mkdtempSync(join(tmpdir(), storeSocketDirPrefix))
      : undefined;
  const removeSocketDirectory = () => {
    if (socketDirectory !== undefined) rmSync(socketDirectory, { recursive: true, force: true });
  };
  try {
    const gatewayConfig = loadGatewayConfig({
      ...env,
      GATEWAY_HOST: "127.0.0.1",
      GATEWAY_PORT: "0",
      ...backends.addresses,
    });
    const mcp = await openLocalMcp(gatewayConfig, backends.logger("gateway"));
    let socketGateway: RunningService | undefined;
    const socketPath = socketDirectory === undefined ? undefined : join(socketDirectory, gatewaySocketName);
    if (socketPath !== undefined) {
      try {
        socketGateway = await startGateway(gatewayConfig, backends.logger("gateway"), { socketPath });
      } catch (error) {
        await mcp.close();
        throw error;
      }
      backends.publish(`http+unix://${encodeURIComponent(socketPath)}/mcp`, { socketPath });
    }
    let closing: Promise<void> | undefined;
    return {
      mcp,
      socketPath,
      close() {
        closing ??= (async () => {
          await mcp.close();
          await socketGateway?.close();
          await backends.close();
          removeSocketDirectory();
        })();
        return closing;
      },
    };
  } catch (error) {
    await backends.close();
    removeSocketDirectory();
    throw error;
  }
}

/**
 * Polls the gateway's readiness, which asks the store and the embedder over
 * gRPC health and includes the embedding space check. A refusal by that
 * check (found once the embedder learned its dimension) ends the wait with
 * its explanation instead of a timeout.
 */
async function waitUntilReady(readyUrl: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let refusal: string | undefined;
    try {
      const response = await fetch(readyUrl);
      if (response.ok) return;
      const body = (await response.json().catch(() => ({}))) as {
        embedding_space?: string;
        embedding_space_reason?: string;
      };
      if (body.embedding_space === "refused")
        refusal = body.embedding_space_reason ?? "the embedder's model does not match the stored vectors";
    } catch {
      // The listener is up, so a failure here is transient; keep polling until the deadline.
    }
    if (refusal !== undefined) throw new ContextHubError("EMBEDDING_SPACE_MISMATCH", refusal);
    if (Date.now() > deadline) throw new Error(`Context Hub did not become ready within ${timeoutMs} ms (${readyUrl})`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
