import { join } from "node:path";
import { startGrpcService, type Logger, type RunningService } from "@context-hub/common";
import { searchV1 } from "@context-hub/proto";
import type { StoreConfig } from "./config.js";
import { openDatabase } from "./db/open-database.js";
import type { SqlDatabase } from "./db/sql-database.js";
import {
  createDatabaseSearchVectors,
  createWorkerSearchVectors,
  type SearchVectors,
} from "./entries/search-vectors.js";
import { createWriteScreen } from "./screen/write-screen.js";
import { registerStoreServices } from "./server.js";
import { createStoreServices } from "./store-services.js";
import { openSearch } from "./search/search-module.js";
import { withSearchArtifacts } from "./search-artifacts.js";
import { createSearchHandlers } from "./search-server.js";
import { createIdempotencyExpirySweeper } from "./idempotency/idempotency-expiry.js";
import { deleteExpiredIdempotencyKeys } from "./idempotency/idempotency-repository.js";

// The store's public face: starting it, and the offline operations the CLI
// runs on its database (re-embedding, Qdrant rebuilds, export and import). Tests and benches
// that need internals import them from "@context-hub/store/testing".
export { loadStoreConfig, type StoreConfig } from "./config.js";
export { openDatabase, type DatabaseOptions } from "./db/open-database.js";
export { resourceChangesChannel } from "./db/migrations/0028-resource-subscriptions.js";
export { isMemoryDataDir } from "./db/pglite-database.js";
export type { SqlDatabase } from "./db/sql-database.js";
export {
  planReembedding,
  reembedChunks,
  type EmbeddingSpace,
  type ReembedOptions,
  type ReembedPlan,
  type ReembedResult,
  type SpaceCount,
} from "./vectors/chunk-reembedding.js";
export {
  backfillMemoryMirrors,
  countUnmirroredMemories,
  type MemoryBackfillOptions,
  type MemoryBackfillResult,
} from "./memories/memory-backfill.js";
export type { GeneratedInput } from "./model/entry-model.js";
export { createQdrantCollections, type QdrantCollections } from "./vectors/qdrant-collections.js";
export { reindexQdrant, type ReindexProgress, type ReindexResult } from "./vectors/qdrant-reindex.js";
export { exportStore, type ExportOptions, type ExportSink } from "./transfer/transfer-export.js";
export { importStore, type ImportOptions, type ImportProgress, type ImportResult } from "./transfer/transfer-import.js";
export type { LineSource } from "./transfer/transfer-verify.js";
export { TransferFileError, type TransferCounts, type TransferHeader } from "./transfer/transfer-format.js";

/** What a store can be handed instead of opening its own. */
export interface StoreDependencies {
  /**
   * An already opened (and migrated) database. The store uses it and leaves
   * closing it to the caller; without one it opens `config.database` and
   * closes it on `close()`.
   */
  database?: SqlDatabase;
  /** The clock idempotency keys expire by; the system clock unless given (tests). */
  now?: () => Date;
}

/** How long /readyz waits for the database before calling it unreachable. */
const readinessTimeoutMs = 3_000;

async function isReachable(database: SqlDatabase): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), readinessTimeoutMs);
  });
  try {
    return await Promise.race([database.ping(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Where the graph backend saves its graphs: beside PGlite's files in the data directory; nowhere for an in-memory database. */
function graphDirectoryOf(config: StoreConfig): string | undefined {
  const { url, dataDir } = config.database;
  return url === "" && !dataDir.startsWith("memory://") ? join(dataDir, "vector-graphs") : undefined;
}

/**
 * Starts the store: opens and migrates the database (refusing a schema newer
 * than it knows), then serves its gRPC services (one per domain, and search) with /readyz reporting
 * whether the database answers. `close()` drains calls, then closes the
 * database it opened (PGlite flushes to disk, so acknowledged writes survive).
 */
export async function startStore(
  config: StoreConfig,
  logger: Logger,
  dependencies: StoreDependencies = {},
): Promise<RunningService> {
  const ownsDatabase = dependencies.database === undefined;
  const database = dependencies.database ?? (await openDatabase(config.database, logger));
  const screen = createWriteScreen(config.text);
  screen.warm().catch((error: unknown) => logger.error({ err: error }, "the screen's worker thread failed to start"));
  let searchVectors: SearchVectors | undefined;
  try {
    const search = await openSearch(
      database,
      config.search,
      logger,
      config.database.migrations,
      config.vectors,
      ownsDatabase ? graphDirectoryOf(config) : undefined,
      config.text,
    );
    // Read after openSearch, which sets the text-search language the workers' copy of entry_search_vector must use.
    searchVectors =
      database.kind === "pglite"
        ? await createWorkerSearchVectors(database, config.text, logger)
        : createDatabaseSearchVectors(database);
    const { services, expiry } = createStoreServices(
      database,
      config,
      search,
      screen,
      searchVectors,
      dependencies.now,
      logger,
    );
    const sweeper = createIdempotencyExpirySweeper({
      expiry,
      deleteExpired: (notBefore, limit) => deleteExpiredIdempotencyKeys(database, notBefore, limit),
      logger,
    });
    const running = await startGrpcService({
      name: "store",
      host: config.host,
      port: config.port,
      socketPath: config.socketPath,
      opsPort: config.opsPort,
      logger,
      register: (builder) =>
        registerStoreServices(builder, services).addService(
          searchV1.SearchService,
          createSearchHandlers(withSearchArtifacts(search.service, database)),
        ),
      isReady: () => isReachable(database),
      // Open watches never end by themselves: they end before the server drains, so it need not wait out its grace.
      onDraining: () => services.resourceWatches.close(),
      onClose: async () => {
        await services.resourceWatches.close();
        await sweeper.close();
        await search.close();
        await screen.close();
        await searchVectors?.close();
        if (ownsDatabase) await database.close();
      },
    }).catch(async (error: unknown) => {
      await sweeper.close();
      throw error;
    });
    // Its worker starts a database of its own: not while the store's is starting.
    searchVectors.warm();
    return running;
  } catch (error) {
    await screen.close();
    await searchVectors?.close();
    if (ownsDatabase) await database.close();
    throw error;
  }
}
