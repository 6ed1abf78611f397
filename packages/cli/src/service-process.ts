import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { createGrpcClient } from "@context-hub/common";
import { storeV1 } from "@context-hub/proto";

/** The store's entry point, run as its own process. */
export const storeMainPath = fileURLToPath(new URL("../../../services/store/dist/main.js", import.meta.url));

/** A free TCP port on loopback, so a restarted process can come back on the same address. */
export function findFreePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address !== null ? resolvePort(address.port) : reject(new Error("no free port"))));
    });
  });
}

/** The store running as its own process, as it does in a cluster. */
export interface StoreProcess {
  address: string;
  child: ChildProcess;
  /** Resolves with the exit code when the process ends, for whatever reason. */
  exited: Promise<number | null>;
  /** SIGKILL: no shutdown hook runs. */
  kill(): Promise<void>;
  /** SIGTERM, then wait for the clean exit that drains calls and closes the database. */
  stop(): Promise<void>;
}

/** Starts `services/store/dist/main.js` on 127.0.0.1:`port` and waits until its gRPC health says SERVING. */
export async function startStoreProcess(port: number, env: NodeJS.ProcessEnv, readyTimeoutMs = 60_000): Promise<StoreProcess> {
  const child = spawn(process.execPath, [storeMainPath], {
    env: { ...env, STORE_HOST: "127.0.0.1", STORE_PORT: String(port), STORE_OPS_PORT: "-1" },
    // The IPC channel ties the child's life to ours: it shuts down when we go away.
    stdio: ["ignore", "inherit", "pipe", "ipc"],
  });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-20_000);
    process.stderr.write(chunk);
  });
  let exitCode: number | null | undefined;
  const exited = new Promise<number | null>((resolveExit) =>
    child.once("exit", (code) => {
      exitCode = code;
      resolveExit(code);
    }),
  );
  const address = `127.0.0.1:${port}`;
  const health = createGrpcClient(storeV1.StoreService, { address, peer: "store", deadlineMs: 1000 });
  try {
    const deadline = Date.now() + readyTimeoutMs;
    while (!(await health.isServing(500))) {
      if (exitCode !== undefined) throw new Error(`the store exited with ${exitCode} before it was ready:\n${stderr}`);
      if (Date.now() > deadline) {
        child.kill("SIGKILL");
        throw new Error(`the store was not ready after ${readyTimeoutMs} ms:\n${stderr}`);
      }
      await new Promise((wait) => setTimeout(wait, 25));
    }
  } finally {
    health.close();
  }
  return {
    address,
    child,
    exited,
    async kill() {
      child.kill("SIGKILL");
      await exited;
    },
    async stop() {
      if (exitCode === undefined) child.kill("SIGTERM");
      const code = await exited;
      if (code !== 0) throw new Error(`the store exited with ${code} on SIGTERM:\n${stderr}`);
    },
  };
}
