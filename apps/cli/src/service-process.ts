import { spawn, type ChildProcess } from "node:child_process";
import { rmSync } from "node:fs";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { createGrpcClient, toDialAddress } from "@context-hub/common";
import { storeV1 } from "@context-hub/proto";

/** The store's entry point, run as its own process. */
export const storeMainPath = fileURLToPath(new URL("../../../services/store/dist/main.js", import.meta.url));

/**
 * A free TCP port on loopback, so a restarted process can come back on the
 * same address. Racy by nature: the port is free when this returns, and any
 * process binding a port meanwhile may be given it; prefer a Unix socket
 * (`startStoreProcess` with `socketPath`) where one will do.
 */
export function findFreePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address !== null ? resolvePort(address.port) : reject(new Error("no free port")),
      );
    });
  });
}

/** Where a store process listens: TCP on 127.0.0.1:`port`, or the Unix socket `socketPath`. */
export type StoreListen = { port: number } | { socketPath: string };

/** The store running as its own process, as it does in a cluster. */
export interface StoreProcess {
  /** What clients dial: `127.0.0.1:<port>` or `unix:<path>`. */
  address: string;
  child: ChildProcess;
  /** Resolves with the exit code when the process ends, for whatever reason. */
  exited: Promise<number | null>;
  /** SIGKILL: no shutdown hook runs. */
  kill(): Promise<void>;
  /** SIGTERM, then wait for the clean exit that drains calls and closes the database. */
  stop(): Promise<void>;
}

/**
 * Starts `services/store/dist/main.js` listening on `listen` and waits until
 * its gRPC health says the StoreService is SERVING. On a socket, the caller
 * vouches that no live store listens at that path: a file left there by a
 * store that died is removed first, so the new one can bind it.
 */
export async function startStoreProcess(
  listen: StoreListen,
  env: NodeJS.ProcessEnv,
  readyTimeoutMs = 60_000,
): Promise<StoreProcess> {
  if ("socketPath" in listen) rmSync(listen.socketPath, { force: true });
  const child = spawn(process.execPath, [storeMainPath], {
    env: {
      ...env,
      STORE_HOST: "127.0.0.1",
      ...("socketPath" in listen
        ? { STORE_SOCKET: listen.socketPath }
        : { STORE_PORT: String(listen.port), STORE_SOCKET: "" }),
      STORE_OPS_PORT: "-1",
    },
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
  const address = toDialAddress("socketPath" in listen ? listen : { host: "127.0.0.1", port: listen.port });
  const health = createGrpcClient(storeV1.StoreService, { address, peer: "store", deadlineMs: 1000 });
  try {
    const deadline = Date.now() + readyTimeoutMs;
    // The store's own service, not just any server: over TCP another process may hold the port.
    while (!(await health.isServing(500, storeV1.StoreService.typeName))) {
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
