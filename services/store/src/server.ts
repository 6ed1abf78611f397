// The store's gRPC transport: every service the store process serves but search, each domain's handlers in its own `*-server.ts`.
import type { GrpcServerBuilder } from "@context-hub/common";
import { storeV1 } from "@context-hub/proto";
import { createApiKeysHandlers } from "./api-keys-server.js";
import type { AuditService } from "./audit/audit.js";
import { createAuditHandlers } from "./audit-server.js";
import type { DescribeService } from "./describe.js";
import { createDescribeHandlers } from "./describe-server.js";
import type { EntryService } from "./entries/entries.js";
import { createEntriesHandlers } from "./entries-server.js";
import type { HistoryService } from "./history/history.js";
import { createHistoryHandlers } from "./history-server.js";
import { createIdempotencyHandlers } from "./idempotency-server.js";
import type { ApiKeyService } from "./keys/api-keys.js";
import type { MemoryService } from "./memories/memories.js";
import { createMemoriesHandlers } from "./memories-server.js";
import type { HandoffService } from "./handoffs/handoffs.js";
import { createHandoffsHandlers } from "./handoffs-server.js";
import type { SessionService } from "./sessions/sessions.js";
import { createSessionsHandlers } from "./sessions-server.js";
import type { ArtifactService } from "./artifacts/artifacts.js";
import { createArtifactsHandlers } from "./artifacts-server.js";
import type { CollectionService } from "./collections/collections.js";
import { createCollectionsHandlers } from "./collections-server.js";
import type { PublicationService } from "./publications/publications.js";
import { createPublicationsHandlers } from "./publications-server.js";
import type { ResourceWatchService } from "./resource-watch/resource-watch.js";
import { createResourceWatchHandlers } from "./resource-watch-server.js";
import type { ReviewService } from "./review/review.js";
import { createReviewHandlers } from "./review-server.js";
import type { SharingService } from "./sharing/sharing.js";
import { createSharingHandlers } from "./sharing-server.js";
import { createTransferHandlers, type TransferDependencies } from "./transfer-server.js";

/** The domain services the transport serves. */
export interface StoreServices {
  entries: EntryService;
  sharing: SharingService;
  apiKeys: ApiKeyService;
  history: HistoryService;
  review: ReviewService;
  audit: AuditService;
  memories: MemoryService;
  handoffs: HandoffService;
  sessions: SessionService;
  artifacts: ArtifactService;
  collections: CollectionService;
  publications: PublicationService;
  resourceWatches: ResourceWatchService;
  store: DescribeService;
  transfer: TransferDependencies;
}

/** Adds one gRPC service per domain to `builder`: StoreService (Describe) and the entries, sharing, idempotency, API key, history, review, audit, memories, handoffs, sessions, artifacts, collections, publications, resource watch and transfer services. */
export function registerStoreServices(builder: GrpcServerBuilder, services: StoreServices): GrpcServerBuilder {
  return builder
    .addService(storeV1.StoreService, createDescribeHandlers(services.store))
    .addService(storeV1.EntriesService, createEntriesHandlers(services.entries))
    .addService(storeV1.SharingService, createSharingHandlers(services.sharing))
    .addService(storeV1.IdempotencyService, createIdempotencyHandlers(services.entries))
    .addService(storeV1.ApiKeysService, createApiKeysHandlers(services.apiKeys))
    .addService(storeV1.HistoryService, createHistoryHandlers(services.history))
    .addService(storeV1.ReviewService, createReviewHandlers(services.review))
    .addService(storeV1.AuditService, createAuditHandlers(services.audit))
    .addService(storeV1.MemoriesService, createMemoriesHandlers(services.memories))
    .addService(storeV1.HandoffsService, createHandoffsHandlers(services.handoffs))
    .addService(storeV1.SessionsService, createSessionsHandlers(services.sessions))
    .addService(storeV1.ArtifactsService, createArtifactsHandlers(services.artifacts))
    .addService(storeV1.CollectionsService, createCollectionsHandlers(services.collections))
    .addService(storeV1.PublicationsService, createPublicationsHandlers(services.publications))
    .addService(storeV1.ResourceWatchService, createResourceWatchHandlers(services.resourceWatches))
    .addService(storeV1.TransferService, createTransferHandlers(services.transfer));
}
