import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createGrpcClient } from "@context-hub/common";
import { storeV1 } from "@context-hub/proto";

const storeMain = resolve(fileURLToPath(import.meta.url), "../../../../services/store/dist/main.js");

/** A free TCP port on loopback (so a restarted store can come back on the same address). */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address !== null ? resolvePort(address.port) : reject(new Error("no port"))));
    });
  });
}

/** The store as its own process, as it runs in a cluster, so tests can kill it. */
export interface StoreProcess {
  address: string;
  child: ChildProcess;
  /** SIGKILL: no shutdown hook runs. */
  kill(): Promise<void>;
  /** SIGTERM and wait for a clean exit. */
  stop(): Promise<void>;
}

export async function startStoreProcess(port: number, env: NodeJS.ProcessEnv, readyTimeoutMs = 60_000): Promise<StoreProcess> {
  const child = spawn(process.execPath, [storeMain], {
    env: { ...process.env, LOG_LEVEL: "warn", ...env, STORE_HOST: "127.0.0.1", STORE_PORT: String(port), STORE_OPS_PORT: "-1" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolveExit) => child.once("exit", (code) => resolveExit(code)));
  const address = `127.0.0.1:${port}`;
  const health = createGrpcClient(storeV1.StoreService, { address, peer: "store", deadlineMs: 1000 });
  try {
    const deadline = Date.now() + readyTimeoutMs;
    let early: number | null | undefined;
    void exited.then((code) => (early = code));
    while (!(await health.isServing(500))) {
      if (early !== undefined) throw new Error(`store exited with ${early} before it was ready:\n${stderr}`);
      if (Date.now() > deadline) throw new Error(`store not ready after ${readyTimeoutMs} ms:\n${stderr}`);
      await new Promise((wait) => setTimeout(wait, 25));
    }
  } finally {
    health.close();
  }
  return {
    address,
    child,
    async kill() {
      child.kill("SIGKILL");
      await exited;
    },
    async stop() {
      child.kill("SIGTERM");
      const code = await exited;
      if (code !== 0) throw new Error(`store exited with ${code} on SIGTERM:\n${stderr}`);
    },
  };
}
