/**
 * The store's internals that integration tests and benches reach for
 * deliberately: connections, migrations, the access predicate, search and
 * vector-index building blocks, audit hashing. Imported as
 * "@context-hub/store/testing"; nothing in a service or the CLI uses it.
 */
export { createPgliteConnection, type PgliteOptions } from "../db/pglite-database.js";
export { sharedBuffersFor } from "../db/pglite-buffers.js";
export { createPostgresConnection, type PostgresOptions } from "../db/postgres-database.js";
export { createPostgresStatements, isStaleStatement, type PostgresStatements } from "../db/postgres-statements.js";
export { migrate, type MigrationResult } from "../db/migrate.js";
export { latestSchemaVersion, migrations, type Migration } from "../db/migrations/index.js";
export { ginIndexes } from "../db/migrations/0025-gin-without-pending-list.js";
export { promptNameIndex } from "../db/migrations/0026-prompt-names.js";
export { isUniqueViolationOf, promptNameTakenCode } from "../model/prompt-name.js";
export {
  createSqlParams,
  type DatabaseKind,
  type SqlConnection,
  type SqlExecutor,
  type SqlParams,
  type SqlResult,
  type VectorType,
} from "../db/sql-database.js";
export { toVectorsParam } from "../vectors/vector-literal.js";
export { encodeFloat4Array, type ArrayElementType } from "../db/bind-message.js";
export { accessPredicate, deletedEntryPredicate, type AccessMode } from "../filters/access-predicate.js";
export { trustFilter, defaultReadableTrustStates } from "../filters/trust-filter.js";
export { createEntryRepository } from "../entries/entry-repository.js";
export { trustColumns, toEntryTrust, type TrustRow } from "../entries/entry-rows.js";
export {
  createDatabaseSearchVectors,
  createWorkerSearchVectors,
  type SearchVectors,
} from "../entries/search-vectors.js";
export { createEntryService, type EntryService } from "../entries/entries.js";
export { createAuditRepository } from "../audit/audit-repository.js";
export { screenEntry, screenRules, type ScreenFinding, type ScreenRuleId } from "../screen/instruction-screen.js";
export { createWriteScreen } from "../screen/write-screen.js";
export { auditHash, canonicalJson, createDenialRecorder, genesisHash, type AuditRecord } from "../audit/audit.js";
export type { TrustState } from "../model/trust.js";
export { openSearch, type OpenSearch } from "../search/search-module.js";
export { defaultSearchConfig, type SearchConfig } from "../search/search-config.js";
export { openTenantBm25Indexes } from "../search/bm25-indexes.js";
export { createSampledFrequencies, rareBelow } from "../search/sampled-frequencies.js";
export { estimateCollection } from "../search/view-sample.js";
export { createDocumentFrequencyCache } from "../search/bm25-statistics.js";
export { hnswIndexName } from "../vectors/postgres-vector-queries.js";
export { graphKeyOf } from "../vectors/graph-space.js";
export { collectionName, createQdrantClient, readChunkPoints, type ChunkPoint } from "../vectors/qdrant-collections.js";
export type { QdrantSettings, VectorBackendConfig, VectorBackendKind } from "../vectors/qdrant-config.js";
export {
  createVectorOutboxRelay,
  deliverOutboxBatch,
  readOutboxStatus,
  setVectorOutbox,
  type OutboxStatus,
  type VectorOutboxRelay,
} from "../vectors/vector-outbox.js";
export { toQdrantFilter } from "../vectors/qdrant-vector-index.js";
export type { VectorIndex, VectorQuery, VectorSearchResult } from "../vectors/vector-index.js";
export { createUuidV7, isUuid } from "../model/ids.js";
export {
  createIdempotencyExpirySweeper,
  expiryBatchSize,
  expiryBatchesPerSweep,
  type IdempotencyExpirySweeper,
} from "../idempotency/idempotency-expiry.js";
export { deleteExpiredIdempotencyKeys } from "../idempotency/idempotency-repository.js";
export { removeEmptySpaces } from "../vectors/chunk-reembedding.js";
export type { Principal, Scope } from "../model/principal.js";
export { nastyQueries } from "../search/search-nasty-queries.js";
export { entrySource, searchFilterConditions } from "../filters/search-filter-sql.js";
export { emptySearchFilter } from "../model/search-filter.js";
export { validateNewEntry } from "../entries/entry-validation.js";
export { limits as storeWriteLimits } from "../model/field-validation.js";
export { searchGraph } from "../vectors/graph-search.js";
export { newGraph, type Space } from "../vectors/graph-space.js";
export { defaultVectorIndexSettings } from "../vectors/postgres-vector-settings.js";
