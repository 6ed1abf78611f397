import { join } from "node:path";
import { startGrpcService, type Logger, type RunningService } from "@context-hub/common";
import { searchV1, storeV1 } from "@context-hub/proto";
import type { StoreConfig } from "./config.js";
import { openDatabase } from "./db/open-database.js";
import type { SqlDatabase } from "./db/sql-database.js";
import { createApiKeyRepository } from "./api-key-repository.js";
import { createApiKeyService } from "./api-keys.js";
import { createEntryRepository } from "./entry-repository.js";
import { createWriteScreen } from "./write-screen.js";
import { createEntryService } from "./entries.js";
import { createDescribeService } from "./describe.js";
import { createStoreHandlers } from "./server.js";
import { openSearch } from "./search-module.js";
import { createSearchHandlers } from "./search-server.js";
import { createSharingService } from "./sharing.js";
import { createAuditRepository } from "./audit-repository.js";
import { createAuditService, createDenialRecorder } from "./audit.js";
import { createHistoryRepository } from "./history-repository.js";
import { createHistoryService } from "./history.js";
import { createReviewRepository } from "./review-repository.js";
import { createReviewService } from "./review.js";
import { createIdempotencyExpirySweeper } from "./idempotency-expiry.js";
import { deleteExpiredIdempotencyKeys } from "./idempotency-repository.js";

export { loadStoreConfig, type StoreConfig } from "./config.js";
export { openDatabase, type DatabaseOptions } from "./db/open-database.js";
export { createPgliteConnection, isMemoryDataDir, type PgliteOptions } from "./db/pglite-database.js";
export { createPostgresConnection, type PostgresOptions } from "./db/postgres-database.js";
export { createPostgresStatements, isStaleStatement, type PostgresStatements } from "./db/postgres-statements.js";
export { migrate, type MigrationResult } from "./db/migrate.js";
export { latestSchemaVersion, migrations, type Migration } from "./migrations/index.js";
export { createSqlParams, type DatabaseKind, type SqlConnection, type SqlDatabase, type SqlExecutor, type SqlParams, type SqlResult, type VectorType } from "./db/sql-database.js";
export { accessPredicate, deletedEntryPredicate, type AccessMode } from "./access-predicate.js";
export { trustFilter, defaultReadableTrustStates } from "./trust-filter.js";
export { createEntryRepository, trustColumns, toEntryTrust, type TrustRow } from "./entry-repository.js";
export { createEntryService, type EntryService } from "./entries.js";
export { createAuditRepository } from "./audit-repository.js";
export { screenEntry, screenRules, type ScreenFinding, type ScreenRuleId } from "./instruction-screen.js";
export { auditHash, canonicalJson, createDenialRecorder, genesisHash, type AuditRecord } from "./audit.js";
export type { TrustState } from "./trust.js";
export { openSearch, type OpenSearch } from "./search-module.js";
export { defaultSearchConfig, type SearchConfig } from "./search-config.js";
export { hnswIndexName } from "./postgres-vector-index.js";
export { graphKeyOf } from "./graph-vector-index.js";
export { collectionName, createQdrantClient, createQdrantCollections, readChunkPoints, type ChunkPoint, type QdrantCollections } from "./qdrant-collections.js";
export type { QdrantSettings, VectorBackendConfig, VectorBackendKind } from "./qdrant-config.js";
export { createVectorOutboxRelay, deliverOutboxBatch, readOutboxStatus, setVectorOutbox, type OutboxStatus, type VectorOutboxRelay } from "./vector-outbox.js";
export { reindexQdrant, type ReindexProgress, type ReindexResult } from "./qdrant-reindex.js";
export { toQdrantFilter } from "./qdrant-vector-index.js";
export type { VectorIndex, VectorQuery, VectorSearchResult } from "./vector-index.js";
export { createUuidV7, isUuid } from "./ids.js";
export { createIdempotencyExpirySweeper, expiryBatchSize, expiryBatchesPerSweep, type IdempotencyExpirySweeper } from "./idempotency-expiry.js";
export { deleteExpiredIdempotencyKeys } from "./idempotency-repository.js";
export type { Principal, Scope } from "./principal.js";

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
 * than it knows), then serves StoreService over gRPC with /readyz reporting
 * whether the database answers. `close()` drains calls, then closes the
 * database it opened (PGlite flushes to disk, so acknowledged writes survive).
 */
export async function startStore(config: StoreConfig, logger: Logger, dependencies: StoreDependencies = {}): Promise<RunningService> {
  const ownsDatabase = dependencies.database === undefined;
  const database = dependencies.database ?? (await openDatabase(config.database, logger));
  const screen = createWriteScreen(config.text);
  screen.warm().catch((error: unknown) => logger.error({ err: error }, "the screen's worker thread failed to start"));
  try {
    const search = await openSearch(database, config.search, logger, config.database.migrations, config.vectors, ownsDatabase ? graphDirectoryOf(config) : undefined);
    const repository = createEntryRepository(database, { onChunksCommitted: search.vectors.chunksCommitted?.bind(search.vectors) });
    const auditRepository = createAuditRepository(database);
    const denials = createDenialRecorder(auditRepository);
    const expiry = { ttlMs: config.idempotency.ttlMs, now: dependencies.now ?? (() => new Date()) };
    const services = {
      entries: createEntryService(repository, denials, screen, expiry),
      sharing: createSharingService(repository, denials, expiry),
      apiKeys: createApiKeyService(createApiKeyRepository(database)),
      history: createHistoryService(createHistoryRepository(database), denials),
      review: createReviewService(repository, createReviewRepository(database), denials),
      audit: createAuditService(auditRepository, denials),
      store: createDescribeService(database, () => search.vectors.kind),
    };
    const sweeper = createIdempotencyExpirySweeper({ expiry, deleteExpired: (notBefore, limit) => deleteExpiredIdempotencyKeys(database, notBefore, limit), logger });
    return await startGrpcService({
      name: "store",
      host: config.host,
      port: config.port,
      socketPath: config.socketPath,
      opsPort: config.opsPort,
      logger,
      register: (builder) => builder.addService(storeV1.StoreService, createStoreHandlers(services)).addService(searchV1.SearchService, createSearchHandlers(search.service)),
      isReady: () => isReachable(database),
      onClose: async () => {
        await sweeper.close();
        await search.close();
        await screen.close();
        if (ownsDatabase) await database.close();
      },
    }).catch(async (error: unknown) => {
      await sweeper.close();
      throw error;
    });
  } catch (error) {
    await screen.close();
    if (ownsDatabase) await database.close();
    throw error;
  }
}
export { nastyQueries } from "./search-nasty-queries.js";
export { entrySource, searchFilterConditions } from "./search-filter-sql.js";
export { emptySearchFilter } from "./search-filter.js";
