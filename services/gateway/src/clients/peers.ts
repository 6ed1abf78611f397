import { createGrpcClient, type GrpcClient, type ServiceDescriptor } from "@context-hub/common";
import { embedderV1, rerankerV1, searchV1, storeV1, summarizerV1 } from "@context-hub/proto";
import type { GatewayConfig } from "../config.js";

/** StoreService: what the store process runs on (Describe); the store's domains each have a service of their own, below. */
export type StoreClient = GrpcClient<typeof storeV1.StoreService>;
export type EntriesServiceClient = GrpcClient<typeof storeV1.EntriesService>;
export type SharingServiceClient = GrpcClient<typeof storeV1.SharingService>;
export type IdempotencyServiceClient = GrpcClient<typeof storeV1.IdempotencyService>;
export type ApiKeysServiceClient = GrpcClient<typeof storeV1.ApiKeysService>;
export type HistoryServiceClient = GrpcClient<typeof storeV1.HistoryService>;
export type ReviewServiceClient = GrpcClient<typeof storeV1.ReviewService>;
export type AuditServiceClient = GrpcClient<typeof storeV1.AuditService>;
export type MemoriesServiceClient = GrpcClient<typeof storeV1.MemoriesService>;
export type HandoffsServiceClient = GrpcClient<typeof storeV1.HandoffsService>;
export type SessionsServiceClient = GrpcClient<typeof storeV1.SessionsService>;
export type ArtifactsServiceClient = GrpcClient<typeof storeV1.ArtifactsService>;
export type CollectionsServiceClient = GrpcClient<typeof storeV1.CollectionsService>;
export type PublicationsServiceClient = GrpcClient<typeof storeV1.PublicationsService>;
export type ResourceWatchServiceClient = GrpcClient<typeof storeV1.ResourceWatchService>;
/** SearchService, served by the store process at the store's address. */
export type SearchServiceClient = GrpcClient<typeof searchV1.SearchService>;
export type EmbedderClient = GrpcClient<typeof embedderV1.EmbedderService>;
export type SummarizerClient = GrpcClient<typeof summarizerV1.SummarizerService>;
export type RerankerClient = GrpcClient<typeof rerankerV1.RerankerService>;

/** The gateway's connections to the services it orchestrates. Every store service is served at the store's address. */
export interface Peers {
  store: StoreClient;
  entries: EntriesServiceClient;
  sharing: SharingServiceClient;
  idempotency: IdempotencyServiceClient;
  apiKeys: ApiKeysServiceClient;
  history: HistoryServiceClient;
  review: ReviewServiceClient;
  audit: AuditServiceClient;
  memories: MemoriesServiceClient;
  handoffs: HandoffsServiceClient;
  sessions: SessionsServiceClient;
  artifacts: ArtifactsServiceClient;
  collections: CollectionsServiceClient;
  publications: PublicationsServiceClient;
  resourceWatch: ResourceWatchServiceClient;
  search: SearchServiceClient;
  embedder: EmbedderClient;
  /** Absent when summaries are turned off. */
  summarizer: SummarizerClient | undefined;
  reranker: RerankerClient;
  close(): void;
}

/** Opens gRPC channels to every peer, each with the deadline its work allows. */
export function createPeers(config: GatewayConfig): Peers {
  // One client per store service, all at the store's address under its deadline (grpc-js shares the connection among them).
  const atStore = <S extends ServiceDescriptor>(service: S) =>
    createGrpcClient(service, { address: config.peers.store, peer: "store", deadlineMs: config.timeouts.storeMs });
  const storeClients = {
    store: atStore(storeV1.StoreService),
    entries: atStore(storeV1.EntriesService),
    sharing: atStore(storeV1.SharingService),
    idempotency: atStore(storeV1.IdempotencyService),
    apiKeys: atStore(storeV1.ApiKeysService),
    history: atStore(storeV1.HistoryService),
    review: atStore(storeV1.ReviewService),
    audit: atStore(storeV1.AuditService),
    memories: atStore(storeV1.MemoriesService),
    handoffs: atStore(storeV1.HandoffsService),
    sessions: atStore(storeV1.SessionsService),
    artifacts: atStore(storeV1.ArtifactsService),
    collections: atStore(storeV1.CollectionsService),
    publications: atStore(storeV1.PublicationsService),
    resourceWatch: atStore(storeV1.ResourceWatchService),
    search: atStore(searchV1.SearchService),
  };
  const embedder = createGrpcClient(embedderV1.EmbedderService, {
    address: config.peers.embedder,
    peer: "embedder",
    deadlineMs: config.timeouts.embedMs,
  });
  const summarizer = config.summariesEnabled
    ? createGrpcClient(summarizerV1.SummarizerService, {
        address: config.peers.summarizer,
        peer: "summarizer",
        deadlineMs: config.timeouts.summaryMs,
      })
    : undefined;
  const reranker = createGrpcClient(rerankerV1.RerankerService, {
    address: config.peers.reranker,
    peer: "reranker",
    deadlineMs: config.timeouts.rerankMs,
  });
  return {
    ...storeClients,
    embedder,
    summarizer,
    reranker,
    close() {
      for (const client of Object.values(storeClients)) client.close();
      embedder.close();
      summarizer?.close();
      reranker.close();
    },
  };
}
