import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ContextHubError, createLogger, type Logger, type RunningService } from "@context-hub/common";
import { loadEmbedderConfig, startEmbedder } from "@context-hub/embedder";
import { loadGatewayConfig, openLocalMcp, startGateway, type LocalMcp } from "@context-hub/gateway";
import { loadRerankerConfig, startReranker } from "@context-hub/reranker";
import { loadStoreConfig, startStore } from "@context-hub/store";
import { loadSummarizerConfig, startSummarizer } from "@context-hub/summarizer";
import {
  gatewaySocketName,
  removeRuntimeFile,
  removeStaleGatewaySocket,
  removeStaleStoreSocket,
  storeSocketDirPrefix,
  storeSocketName,
  writeRuntimeFile,
  type RuntimeInfo,
} from "./runtime-file.js";
import { findFreePort, startStoreProcess, type StoreListen, type StoreProcess } from "./service-process.js";

export interface AllInOneOptions {
  /** Environment the services read their settings from (defaults to process.env). */
  env?: NodeJS.ProcessEnv;
  /** Host the gateway binds; the internal services always bind loopback. */
  host?: string;
  /** Gateway port; 0 picks a free one. */
  port?: number;
  /** PGlite directory (ignored when DATABASE_URL is set); "memory://" keeps everything in memory. */
  dataDir?: string;
  logger?: Logger;
  /** How long to wait for every service to report ready (models loaded, database reachable). */
  readyTimeoutMs?: number;
  /**
   * Run the store in a child process (restarted if it dies) instead of in
   * this one, so the database work has a core of its own. \`context-hub start\`
   * does; tests usually don't.
   */
  storeProcess?: boolean;
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

/** The store and the three model workers, started together, with what the gateway needs to reach them. */
interface Backends {
  services: Record<"store" | "embedder" | "summarizer" | "reranker", RunningService>;
  /** STORE_ADDRESS, EMBEDDER_ADDRESS, … for the gateway's configuration. */
  addresses: Record<string, string>;
  /** A logger for one service, under its own name. */
  logger(service: string): Logger;
  /** False when the data lives in memory: then there is no directory to publish a socket in. */
  canServeSocket: boolean;
  /**
   * Writes the runtime file that tells `context-hub keys` where the running
   * store and gateway are: on PGlite, and with a socket on any database.
   */
  publish(url: string, extra?: Pick<RuntimeInfo, "socketPath">): void;
  /** Stops the workers, then the store, and removes the runtime file. */
  close(): Promise<void>;
}

async function startBackends(options: AllInOneOptions): Promise<Backends> {
  const env = options.env ?? process.env;
  const logLevel = env.LOG_LEVEL ?? "info";
  const internal = {
    ...env,
    // On PGlite the store is the only process writing, so its vectors can live in a native graph beside the database instead of pgvector's inside it.
    STORE_VECTOR_BACKEND: env.STORE_VECTOR_BACKEND ?? ((env.DATABASE_URL ?? "") === "" ? "graph" : "pgvector"),
    STORE_HOST: "127.0.0.1",
    EMBEDDER_HOST: "127.0.0.1",
    SUMMARIZER_HOST: "127.0.0.1",
    RERANKER_HOST: "127.0.0.1",
  };
  // Each service logs under its own name, as it does when it runs as its own process.
  const child = (service: string) => options.logger?.child({ service }) ?? createLogger(service, logLevel);

  const started: RunningService[] = [];
  const track = async (service: Promise<RunningService>) => {
    const running = await service;
    started.push(running);
    return running;
  };
  try {
    const storeConfig = loadStoreConfig({
      ...internal,
      STORE_PORT: "0",
      STORE_OPS_PORT: "-1",
      ...(options.dataDir === undefined ? {} : { STORE_DATA_DIR: options.dataDir }),
    });
    // PGlite serves one process per directory: the runtime file tells `context-hub keys` where the running store is.
    const { dataDir } = storeConfig.database;
    const runtimeDir = dataDir.startsWith("memory://") ? undefined : dataDir;
    const publishRuntime = storeConfig.database.url === "" && runtimeDir !== undefined;
    if (runtimeDir !== undefined) {
      const removed = publishRuntime && options.storeProcess === true ? removeStaleStoreSocket(dataDir) : undefined;
      if (removed !== undefined)
        child("store").info({ directory: removed }, "removed the store socket a killed context-hub start left behind");
      const removedGateway = removeStaleGatewaySocket(dataDir);
      if (removedGateway !== undefined)
        child("gateway").info(
          { directory: removedGateway },
          "removed the MCP socket a killed context-hub stdio left behind",
        );
    }
    const [store, embedder, summarizer, reranker] = await Promise.all([
      track(
        options.storeProcess === true
          ? startSupervisedStore(
              { ...internal, STORE_OPS_PORT: "-1", STORE_DATA_DIR: storeConfig.database.dataDir },
              child("store"),
            )
          : startStore(storeConfig, child("store")),
      ),
      track(
        startEmbedder(
          loadEmbedderConfig({ ...internal, EMBEDDER_PORT: "0", EMBEDDER_OPS_PORT: "-1" }),
          child("embedder"),
        ),
      ),
      track(
        startSummarizer(
          loadSummarizerConfig({ ...internal, SUMMARIZER_PORT: "0", SUMMARIZER_OPS_PORT: "-1" }),
          child("summarizer"),
        ),
      ),
      track(
        startReranker(
          loadRerankerConfig({ ...internal, RERANKER_PORT: "0", RERANKER_OPS_PORT: "-1" }),
          child("reranker"),
        ),
      ),
    ]);
    let published = false;
    let closing: Promise<void> | undefined;
    return {
      services: { store, embedder, summarizer, reranker },
      addresses: {
        STORE_ADDRESS: store.address,
        EMBEDDER_ADDRESS: embedder.address,
        SUMMARIZER_ADDRESS: summarizer.address,
        RERANKER_ADDRESS: reranker.address,
      },
      logger: child,
      canServeSocket: runtimeDir !== undefined,
      publish(url, extra = {}) {
        if (runtimeDir === undefined || (!publishRuntime && extra.socketPath === undefined)) return;
        // On a PostgreSQL server nothing else creates the directory.
        mkdirSync(runtimeDir, { recursive: true });
        writeRuntimeFile(runtimeDir, { pid: process.pid, storeAddress: store.address, url, ...extra });
        published = true;
      },
      close() {
        closing ??= (async () => {
          if (published) removeRuntimeFile(dataDir, process.pid);
          await Promise.all([embedder.close(), summarizer.close(), reranker.close()]);
          await store.close();
        })();
        return closing;
      },
    };
  } catch (error) {
    await Promise.allSettled(started.map((service) => service.close()));
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

/**
 * Where the supervised store listens: a Unix socket in a new directory only
 * this user may enter, so no other process can take the address between the
 * store's starts nor reach the store past the gateway; TCP on a free loopback
 * port where sockets cannot serve (Windows, or a temporary directory whose
 * path is too long for a socket address).
 */
async function toStoreListen(): Promise<{ listen: StoreListen; release(): void }> {
  if (process.platform !== "win32") {
    const directory = mkdtempSync(join(tmpdir(), storeSocketDirPrefix));
    const socketPath = join(directory, storeSocketName);
    // sun_path holds 104 bytes on macOS, 108 on Linux.
    if (Buffer.byteLength(socketPath) < 100)
      return { listen: { socketPath }, release: () => rmSync(directory, { recursive: true, force: true }) };
    rmSync(directory, { recursive: true, force: true });
  }
  return { listen: { port: await findFreePort() }, release: () => undefined };
}

/**
 * The store as a supervised child process: restarted at the same address if
 * it dies, stopped with SIGTERM (draining calls and closing the database) on close.
 */
async function startSupervisedStore(env: NodeJS.ProcessEnv, logger: Logger): Promise<RunningService> {
  const target = await toStoreListen();
  const { listen } = target;
  let current: StoreProcess;
  try {
    current = await startStoreProcess(listen, env);
  } catch (error) {
    target.release();
    throw error;
  }
  let closing = false;
  const supervise = (process: StoreProcess) => {
    void process.exited.then(async (code) => {
      // Exit code 0 is a requested shutdown (Ctrl-C reaches the whole process group), not a crash.
      if (closing || code === 0) return;
      logger.error({ code }, "the store process exited; restarting it");
      for (let attempt = 1; !closing; attempt++) {
        try {
          current = await startStoreProcess(listen, env);
          supervise(current);
          logger.info("the store process is back");
          return;
        } catch (error) {
          logger.error({ err: error, attempt }, "restarting the store failed");
          await new Promise((wait) => setTimeout(wait, Math.min(5_000, 250 * attempt)));
        }
      }
    });
  };
  supervise(current);
  return {
    name: "store",
    port: "port" in listen ? listen.port : 0,
    address: current.address,
    opsPort: -1,
    async close() {
      closing = true;
      try {
        await current.stop();
      } finally {
        target.release();
      }
    },
  };
}
