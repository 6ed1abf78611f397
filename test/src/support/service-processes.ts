/**
 * The five services as five processes, as they run in a cluster: each
 * `services/<name>/dist/main.js` started with its settings in the
 * environment, on a fixed loopback port, so that one of them can be killed
 * and started again on the same address while the others keep running. Used
 * by the worker-kill test and by bench/faults.js.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { createGrpcClient } from "@context-hub/common";
import { findFreePort } from "@context-hub/cli";
import { embedderV1, rerankerV1, storeV1, summarizerV1 } from "@context-hub/proto";

export type ServiceName = "store" | "embedder" | "summarizer" | "reranker" | "gateway";
export const serviceNames: readonly ServiceName[] = ["store", "embedder", "summarizer", "reranker", "gateway"];
type GrpcService = Exclude<ServiceName, "gateway">;

const descriptors = {
  store: storeV1.StoreService,
  embedder: embedderV1.EmbedderService,
  summarizer: summarizerV1.SummarizerService,
  reranker: rerankerV1.RerankerService,
};

/** The entry point of a service, from the compiled tree. */
export const serviceMainPath = (name: ServiceName) =>
  fileURLToPath(new URL(`../../../services/${name}/dist/main.js`, import.meta.url));

export interface ServiceProcessesOptions {
  /** PGlite data directory of the store (ignored when env.DATABASE_URL is set). */
  dataDir: string;
  /** Settings for every service (API keys, timeouts, providers…); LOG_LEVEL defaults to "warn". */
  env?: NodeJS.ProcessEnv;
  /** How long one service may take to become ready. */
  readyTimeoutMs?: number;
}

export interface ServiceProcesses {
  /** The gateway's MCP endpoint. */
  url: string;
  /** The gateway's base URL (for /readyz). */
  baseUrl: string;
  ports: Readonly<Record<ServiceName, number>>;
  /** Pid of the running process of a service, undefined while it is down. */
  pid(name: ServiceName): number | undefined;
  /** The last 20 kB of a service's output, across its restarts. */
  output(name: ServiceName): string;
  /** SIGKILL of one service: no shutdown hook runs. Resolves once the process is gone. */
  kill(name: ServiceName): Promise<void>;
  /** Starts a service that is down again, on its port, and resolves once it serves. */
  start(name: ServiceName): Promise<void>;
  /** SIGTERM to every running service (the gateway first, the store last); resolves when all have exited. */
  stop(): Promise<void>;
}

interface Running {
  child: ChildProcess;
  exited: Promise<void>;
}

const sleep = (ms: number) => new Promise((wait) => setTimeout(wait, ms));

/** Starts the store, then the three workers, then the gateway; resolves when the gateway's /readyz says ready. */
export async function startServiceProcesses(options: ServiceProcessesOptions): Promise<ServiceProcesses> {
  const readyTimeoutMs = options.readyTimeoutMs ?? 60_000;
  const ports = Object.fromEntries(
    await Promise.all(serviceNames.map(async (name) => [name, await findFreePort()] as const)),
  ) as Record<ServiceName, number>;
  const address = (name: ServiceName) => `127.0.0.1:${ports[name]}`;
  const base: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: "warn", ...options.env };
  const envOf: Record<ServiceName, NodeJS.ProcessEnv> = {
    store: {
      ...base,
      STORE_HOST: "127.0.0.1",
      STORE_PORT: String(ports.store),
      STORE_OPS_PORT: "-1",
      STORE_DATA_DIR: options.dataDir,
      DATABASE_URL: base.DATABASE_URL ?? "",
    },
    embedder: { ...base, EMBEDDER_HOST: "127.0.0.1", EMBEDDER_PORT: String(ports.embedder), EMBEDDER_OPS_PORT: "-1" },
    summarizer: {
      ...base,
      SUMMARIZER_HOST: "127.0.0.1",
      SUMMARIZER_PORT: String(ports.summarizer),
      SUMMARIZER_OPS_PORT: "-1",
    },
    reranker: { ...base, RERANKER_HOST: "127.0.0.1", RERANKER_PORT: String(ports.reranker), RERANKER_OPS_PORT: "-1" },
    gateway: {
      ...base,
      GATEWAY_HOST: "127.0.0.1",
      GATEWAY_PORT: String(ports.gateway),
      STORE_ADDRESS: address("store"),
      EMBEDDER_ADDRESS: address("embedder"),
      SUMMARIZER_ADDRESS: address("summarizer"),
      RERANKER_ADDRESS: address("reranker"),
    },
  };
  const baseUrl = `http://${address("gateway")}`;
  const running = new Map<ServiceName, Running>();
  const outputs = new Map<ServiceName, string>(serviceNames.map((name) => [name, ""]));

  async function waitUntilServing(name: ServiceName, child: ChildProcess): Promise<void> {
    const deadline = Date.now() + readyTimeoutMs;
    const failed = () => child.exitCode !== null || child.signalCode !== null;
    const check =
      name === "gateway"
        ? async () =>
            (await fetch(`${baseUrl}/healthz`, { signal: AbortSignal.timeout(2000) }).catch(() => undefined))
              ?.status === 200
        : (() => {
            const client = createGrpcClient(descriptors[name as GrpcService], {
              address: address(name),
              peer: name as GrpcService,
              deadlineMs: 1000,
            });
            // The service itself, not just any server: another process may have been given the port meanwhile.
            const probe = () => client.isServing(500, descriptors[name as GrpcService].typeName);
            probe.close = () => client.close();
            return probe;
          })();
    try {
      while (!(await check())) {
        if (failed())
          throw new Error(
            `the ${name} exited (${child.exitCode ?? child.signalCode}) before it was ready:\n${outputs.get(name)}`,
          );
        if (Date.now() > deadline)
          throw new Error(`the ${name} was not ready after ${readyTimeoutMs} ms:\n${outputs.get(name)}`);
        await sleep(25);
      }
    } finally {
      (check as { close?: () => void }).close?.();
    }
  }

  async function start(name: ServiceName): Promise<void> {
    if (running.has(name)) throw new Error(`the ${name} is already running (pid ${running.get(name)?.child.pid})`);
    const child = spawn(process.execPath, [serviceMainPath(name)], {
      env: envOf[name],
      // The IPC channel ties each service's life to ours: it shuts down when we go away.
      stdio: ["ignore", "pipe", "pipe", "ipc"],
    });
    const collect = (chunk: Buffer) => outputs.set(name, (outputs.get(name)! + chunk.toString()).slice(-20_000));
    child.stdout!.on("data", collect);
    child.stderr!.on("data", collect);
    const exited = new Promise<void>((done) => child.once("exit", () => done()));
    running.set(name, { child, exited });
    void exited.then(() => {
      if (running.get(name)?.child === child) running.delete(name);
    });
    try {
      await waitUntilServing(name, child);
    } catch (error) {
      child.kill("SIGKILL");
      await exited;
      throw error;
    }
  }

  async function kill(name: ServiceName): Promise<void> {
    const current = running.get(name);
    if (current === undefined) throw new Error(`the ${name} is not running`);
    current.child.kill("SIGKILL");
    await current.exited;
  }

  async function stop(): Promise<void> {
    for (const group of [["gateway"], ["embedder", "summarizer", "reranker"], ["store"]] as ServiceName[][]) {
      await Promise.all(
        group.map(async (name) => {
          const current = running.get(name);
          if (current === undefined) return;
          current.child.kill("SIGTERM");
          const timer = setTimeout(() => current.child.kill("SIGKILL"), 20_000);
          await current.exited;
          clearTimeout(timer);
        }),
      );
    }
  }

  try {
    await start("store");
    await Promise.all((["embedder", "summarizer", "reranker"] as const).map(start));
    await start("gateway");
    // Ready means the gateway reached its peers and passed the embedding space check.
    const deadline = Date.now() + readyTimeoutMs;
    while ((await fetch(`${baseUrl}/readyz`).catch(() => undefined))?.status !== 200) {
      if (Date.now() > deadline)
        throw new Error(`the gateway was not ready after ${readyTimeoutMs} ms:\n${outputs.get("gateway")}`);
      await sleep(50);
    }
  } catch (error) {
    await stop();
    throw error;
  }

  return {
    url: `${baseUrl}/mcp`,
    baseUrl,
    ports,
    pid: (name) => running.get(name)?.child.pid,
    output: (name) => outputs.get(name) ?? "",
    kill,
    start,
    stop,
  };
}
