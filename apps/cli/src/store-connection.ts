import { createGrpcClient, createLogger, type GrpcClient } from "@context-hub/common";
import { storeV1 } from "@context-hub/proto";
import { loadStoreConfig, startStore } from "@context-hub/store";
import { readLiveRuntime } from "./runtime-file.js";

/** The store services the CLI's operator commands call, all at one store's address. */
export interface StoreClients {
  apiKeys: GrpcClient<typeof storeV1.ApiKeysService>;
  history: GrpcClient<typeof storeV1.HistoryService>;
  audit: GrpcClient<typeof storeV1.AuditService>;
  /** Export and import; its streaming calls have no deadline (a large store takes minutes). */
  transfer: GrpcClient<typeof storeV1.TransferService>;
}

/** Runs `work` with clients of the store at `address`, closed when it ends. */
async function withClients<T>(address: string, work: (store: StoreClients) => Promise<T>): Promise<T> {
  const options = { address, peer: "store" as const, deadlineMs: 10_000 };
  const clients = {
    apiKeys: createGrpcClient(storeV1.ApiKeysService, options),
    history: createGrpcClient(storeV1.HistoryService, options),
    audit: createGrpcClient(storeV1.AuditService, options),
    transfer: createGrpcClient(storeV1.TransferService, options),
  };
  try {
    return await work(clients);
  } finally {
    for (const client of Object.values(clients)) client.close();
  }
}

/**
 * Runs `work` against the store that owns the configured database: the live
 * `context-hub start` on the same PGlite directory if there is one (PGlite
 * allows one process per directory), otherwise a store started in this
 * process for the duration of the command. Works whether or not the server
 * is running. The store started here logs to stderr: stdout is the
 * command's (an export's file, a `--json` report).
 */
export async function withStore<T>(env: NodeJS.ProcessEnv, work: (store: StoreClients) => Promise<T>): Promise<T> {
  const config = loadStoreConfig({
    ...env,
    STORE_HOST: "127.0.0.1",
    STORE_PORT: "0",
    STORE_SOCKET: "",
    STORE_OPS_PORT: "-1",
    // A command's store serves no searches: building a vector graph or HNSW index at its start (seconds per 10,000 chunks) would be wasted.
    STORE_HNSW_BUILD: "false",
  });
  const live = config.database.url === "" ? readLiveRuntime(config.database.dataDir) : undefined;
  if (live !== undefined) return withClients(live.storeAddress, work);
  const logger = createLogger("store", env.LOG_LEVEL ?? "warn", {
    write: (line: string) => process.stderr.write(line),
  });
  const store = await startStore(config, logger);
  try {
    return await withClients(store.address, work);
  } finally {
    await store.close();
  }
}
