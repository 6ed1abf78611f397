/**
 * The store's domain services over its database: entries (screened, their chunks told to the vector index), sharing,
 * keys, history, review, audit, memories, handoffs, sessions, artifacts, collections, published resources, resource
 * watches, the store's description and transfer; with the idempotency expiry they share.
 */
import type { Logger } from "@context-hub/common";
import type { StoreConfig } from "./config.js";
import type { SqlDatabase } from "./db/sql-database.js";
import { createApiKeyRepository } from "./keys/api-key-repository.js";
import { createApiKeyService } from "./keys/api-keys.js";
import { createEntryRepository } from "./entries/entry-repository.js";
import type { SearchVectors } from "./entries/search-vectors.js";
import type { WriteScreen } from "./screen/write-screen.js";
import { createEntryService } from "./entries/entries.js";
import { createDescribeService } from "./describe.js";
import type { StoreServices } from "./server.js";
import type { OpenSearch } from "./search/search-module.js";
import { createSharingService } from "./sharing/sharing.js";
import { createAuditRepository } from "./audit/audit-repository.js";
import { createAuditService, createDenialRecorder } from "./audit/audit.js";
import { createHistoryRepository } from "./history/history-repository.js";
import { createHistoryService } from "./history/history.js";
import { createGrantListing } from "./entries/grant-repository.js";
import { createReviewService } from "./review/review.js";
import { createReviewRepository } from "./review/review-queue-repository.js";
import { createWorkflowReviewRepository } from "./review/workflow-review-repository.js";
import { createMemoryRepository } from "./memories/memory-repository.js";
import { createMemoryService } from "./memories/memories.js";
import { createCollectionRepository } from "./collections/collection-repository.js";
import { createCollectionService } from "./collections/collections.js";
import { createPublicationRepository } from "./publications/publication-repository.js";
import { createPublicationService } from "./publications/publications.js";
import { createChangeFeed } from "./resource-watch/change-feed.js";
import { createResourceWatchRepository } from "./resource-watch/resource-watch-repository.js";
import { createResourceWatchService } from "./resource-watch/resource-watch.js";
import { createHandoffRepository } from "./handoffs/handoff-repository.js";
import { createHandoffService } from "./handoffs/handoffs.js";
import { createSessionRepository } from "./sessions/session-repository.js";
import { createSessionService } from "./sessions/sessions.js";
import { createArtifactRepository } from "./artifacts/artifact-repository.js";
import { createArtifactService } from "./artifacts/artifacts.js";

/** The store's domain services over `database`, and the idempotency expiry (by `now`, else the system clock) they share. */
export function createStoreServices(
  database: SqlDatabase,
  config: StoreConfig,
  search: OpenSearch,
  screen: WriteScreen,
  searchVectors: SearchVectors,
  now: (() => Date) | undefined,
  logger: Logger,
) {
  const repository = createEntryRepository(database, {
    onChunksCommitted: search.vectors.chunksCommitted?.bind(search.vectors),
    searchVectors,
  });
  const auditRepository = createAuditRepository(database);
  const denials = createDenialRecorder(auditRepository);
  const publicationRepository = createPublicationRepository(database);
  const expiry = { ttlMs: config.idempotency.ttlMs, now: now ?? (() => new Date()) };
  const services: StoreServices = {
    entries: createEntryService(repository, denials, screen, expiry, config.entryKinds),
    sharing: createSharingService(repository, createGrantListing(database), denials, expiry),
    apiKeys: createApiKeyService(createApiKeyRepository(database)),
    history: createHistoryService(createHistoryRepository(database), denials),
    review: createReviewService(
      repository,
      createReviewRepository(database),
      createWorkflowReviewRepository(database),
      denials,
    ),
    audit: createAuditService(auditRepository, denials),
    memories: createMemoryService(
      createMemoryRepository(database, { onChunksCommitted: search.vectors.chunksCommitted?.bind(search.vectors) }),
      denials,
      screen,
      expiry,
    ),
    handoffs: createHandoffService(createHandoffRepository(database), denials, screen, expiry),
    sessions: createSessionService(createSessionRepository(database), denials, screen, expiry),
    artifacts: createArtifactService(createArtifactRepository(database), denials, {
      ...config.artifacts,
      now: expiry.now,
    }),
    collections: createCollectionService(createCollectionRepository(database), denials, expiry),
    publications: createPublicationService(publicationRepository, denials, expiry),
    resourceWatches: createResourceWatchService(
      createResourceWatchRepository(database),
      publicationRepository,
      createChangeFeed(database, logger),
      logger,
    ),
    store: createDescribeService(
      database,
      () => search.vectors.kind,
      () => search.bm25Indexes.engine,
    ),
    transfer: { database, chunksCommitted: search.vectors.chunksCommitted?.bind(search.vectors) },
  };
  return { services, expiry };
}
