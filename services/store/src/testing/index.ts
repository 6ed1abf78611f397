/**
 * The store's internals that integration tests and benches reach for
 * deliberately: connections, migrations, the access predicate, search and
 * vector-index building blocks, audit hashing. Imported as
 * "@context-hub/store/testing"; nothing in a service or the CLI uses it.
 */
export { createPgliteConnection, type PgliteOptions } from "../db/pglite-database.js";
export { createPostgresConnection, type PostgresOptions } from "../db/postgres-database.js";
export { createPostgresStatements, isStaleStatement, type PostgresStatements } from "../db/postgres-statements.js";
export { migrate, type MigrationResult } from "../db/migrate.js";
export { latestSchemaVersion, migrations, type Migration } from "../db/migrations/index.js";
export { createSqlParams, type DatabaseKind, type SqlConnection, type SqlExecutor, type SqlParams, type SqlResult, type VectorType } from "../db/sql-database.js";
export { accessPredicate, deletedEntryPredicate, type AccessMode } from "../access-predicate.js";
export { trustFilter, defaultReadableTrustStates } from "../trust-filter.js";
export { createEntryRepository } from "../entry-repository.js";
export { trustColumns, toEntryTrust, type TrustRow } from "../entry-rows.js";
export { createDatabaseSearchVectors, createWorkerSearchVectors, type SearchVectors } from "../search-vectors.js";
export { createEntryService, type EntryService } from "../entries.js";
export { createAuditRepository } from "../audit-repository.js";
export { screenEntry, screenRules, type ScreenFinding, type ScreenRuleId } from "../instruction-screen.js";
export { auditHash, canonicalJson, createDenialRecorder, genesisHash, type AuditRecord } from "../audit.js";
export type { TrustState } from "../trust.js";
export { openSearch, type OpenSearch } from "../search-module.js";
export { defaultSearchConfig, type SearchConfig } from "../search-config.js";
export { hnswIndexName } from "../postgres-vector-index.js";
export { graphKeyOf } from "../graph-vector-index.js";
export { collectionName, createQdrantClient, readChunkPoints, type ChunkPoint } from "../qdrant-collections.js";
export type { QdrantSettings, VectorBackendConfig, VectorBackendKind } from "../qdrant-config.js";
export { createVectorOutboxRelay, deliverOutboxBatch, readOutboxStatus, setVectorOutbox, type OutboxStatus, type VectorOutboxRelay } from "../vector-outbox.js";
export { toQdrantFilter } from "../qdrant-vector-index.js";
export type { VectorIndex, VectorQuery, VectorSearchResult } from "../vector-index.js";
export { createUuidV7, isUuid } from "../ids.js";
export { createIdempotencyExpirySweeper, expiryBatchSize, expiryBatchesPerSweep, type IdempotencyExpirySweeper } from "../idempotency-expiry.js";
export { deleteExpiredIdempotencyKeys } from "../idempotency-repository.js";
export { removeEmptySpaces } from "../chunk-reembedding.js";
export type { Principal, Scope } from "../principal.js";
export { nastyQueries } from "../search-nasty-queries.js";
export { entrySource, searchFilterConditions } from "../search-filter-sql.js";
export { emptySearchFilter } from "../search-filter.js";
export { validateNewEntry } from "../entry-validation.js";
export { limits as storeWriteLimits } from "../field-validation.js";
