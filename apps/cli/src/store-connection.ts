import { createGrpcClient, createLogger, type GrpcClient } from "@context-hub/common";
import { storeV1 } from "@context-hub/proto";
import { loadStoreConfig, startStore } from "@context-hub/store";
import { readLiveRuntime } from "./runtime-file.js";

export type StoreClient = GrpcClient<typeof storeV1.StoreService>;

/**
 * Runs `work` against the store that owns the configured database: the live
 * `context-hub start` on the same PGlite directory if there is one (PGlite
 * allows one process per directory), otherwise a store started in this
 * process for the duration of the command. Works whether or not the server
 * is running.
 */
export async function withStore<T>(env: NodeJS.ProcessEnv, work: (store: StoreClient) => Promise<T>): Promise<T> {
  const config = loadStoreConfig({ ...env, STORE_HOST: "127.0.0.1", STORE_PORT: "0", STORE_SOCKET: "", STORE_OPS_PORT: "-1" });
  const live = config.database.url === "" ? readLiveRuntime(config.database.dataDir) : undefined;
  if (live !== undefined) {
    const client = createGrpcClient(storeV1.StoreService, { address: live.storeAddress, peer: "store", deadlineMs: 10_000 });
    try {
      return await work(client);
    } finally {
      client.close();
    }
  }
  const store = await startStore(config, createLogger("store", env.LOG_LEVEL ?? "warn"));
  const client = createGrpcClient(storeV1.StoreService, { address: store.address, peer: "store", deadlineMs: 10_000 });
  try {
    return await work(client);
  } finally {
    client.close();
    await store.close();
  }
}
