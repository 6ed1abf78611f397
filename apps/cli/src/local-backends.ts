/**
 * The store and the three model workers of a hub run in this process (the
 * store optionally in a supervised child process), started together on
 * loopback, with what the gateway needs to reach them and the runtime file
 * that tells `context-hub keys` where they are.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger, type Logger, type RunningService } from "@context-hub/common";
import { loadEmbedderConfig, startEmbedder } from "@context-hub/embedder";
import { loadRerankerConfig, startReranker } from "@context-hub/reranker";
import { loadStoreConfig, startStore, type StoreConfig } from "@context-hub/store";
import { loadSummarizerConfig, startSummarizer } from "@context-hub/summarizer";
import {
  removeRuntimeFile,
  removeStaleGatewaySocket,
  removeStaleStoreSocket,
  storeSocketDirPrefix,
  storeSocketName,
  writeRuntimeFile,
  type RuntimeInfo,
} from "./runtime-file.js";
import { findFreePort, startStoreProcess, type StoreListen, type StoreProcess } from "./service-process.js";

/** How the backends are started. */
export interface BackendOptions {
  /** Environment the services read their settings from (defaults to process.env). */
  env?: NodeJS.ProcessEnv;
  /** PGlite directory (ignored when DATABASE_URL is set); "memory://" keeps everything in memory. */
  dataDir?: string;
  logger?: Logger;
  /**
   * Run the store in a child process (restarted if it dies) instead of in
   * this one, so the database work has a core of its own. \`context-hub start\`
   * does; tests usually don't.
   */
  storeProcess?: boolean;
}

/** The store and the three model workers, started together, with what the gateway needs to reach them. */
export interface Backends {
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

/** Starts the store and the three model workers on loopback; when one fails, stops those that started. */
export async function startBackends(options: BackendOptions): Promise<Backends> {
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
    if (runtimeDir !== undefined) removeStaleSockets(dataDir, publishRuntime && options.storeProcess === true, child);
    const services = await startServices(options, internal, storeConfig, child, track);
    return toBackends(services, child, { dataDir, runtimeDir, publishRuntime });
  } catch (error) {
    await Promise.allSettled(started.map((service) => service.close()));
    throw error;
  }
}

/** Removes the sockets a killed hub left in the data directory (the store's only when `storeSocket`), saying so. */
function removeStaleSockets(dataDir: string, storeSocket: boolean, child: (service: string) => Logger): void {
  const removed = storeSocket ? removeStaleStoreSocket(dataDir) : undefined;
  if (removed !== undefined)
    child("store").info({ directory: removed }, "removed the store socket a killed context-hub start left behind");
  const removedGateway = removeStaleGatewaySocket(dataDir);
  if (removedGateway !== undefined)
    child("gateway").info(
      { directory: removedGateway },
      "removed the MCP socket a killed context-hub stdio left behind",
    );
}

/** Starts the four services at once on free loopback ports; `track` keeps each that started, to stop it on a failure. */
async function startServices(
  options: BackendOptions,
  internal: NodeJS.ProcessEnv,
  storeConfig: StoreConfig,
  child: (service: string) => Logger,
  track: (service: Promise<RunningService>) => Promise<RunningService>,
): Promise<Backends["services"]> {
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
  return { store, embedder, summarizer, reranker };
}

/** Where the runtime file goes, if anywhere, and whether it is written without a socket. */
interface RuntimePlace {
  dataDir: string;
  /** Undefined when the data lives in memory. */
  runtimeDir: string | undefined;
  /** Whether the runtime file is written for the store alone (on PGlite). */
  publishRuntime: boolean;
}

/** The started services as `Backends`: their addresses, publishing the runtime file, and closing in order. */
function toBackends(services: Backends["services"], child: (service: string) => Logger, place: RuntimePlace): Backends {
  const { store, embedder, summarizer, reranker } = services;
  const { dataDir, runtimeDir, publishRuntime } = place;
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
