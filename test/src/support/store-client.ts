/**
 * One client over every service of a store but search (StoreService and the
 * entries, sharing, idempotency, API key, history, review, audit, memories,
 * handoffs, sessions, artifacts, collections, publications and resource watch services), so a suite calls any store RPC on one object. Each method still
 * goes over gRPC to its own service; `close()` closes them all.
 */
import { createGrpcClient, type GrpcClient, type GrpcClientOptions, type ServiceClient } from "@context-hub/common";
import { storeV1 } from "@context-hub/proto";

export type StoreClient = GrpcClient<typeof storeV1.StoreService> &
  ServiceClient<typeof storeV1.EntriesService> &
  ServiceClient<typeof storeV1.SharingService> &
  ServiceClient<typeof storeV1.IdempotencyService> &
  ServiceClient<typeof storeV1.ApiKeysService> &
  ServiceClient<typeof storeV1.HistoryService> &
  ServiceClient<typeof storeV1.ReviewService> &
  ServiceClient<typeof storeV1.AuditService> &
  ServiceClient<typeof storeV1.MemoriesService> &
  ServiceClient<typeof storeV1.HandoffsService> &
  ServiceClient<typeof storeV1.SessionsService> &
  ServiceClient<typeof storeV1.ArtifactsService> &
  ServiceClient<typeof storeV1.CollectionsService> &
  ServiceClient<typeof storeV1.PublicationsService> &
  ServiceClient<typeof storeV1.ResourceWatchService>;

/** Clients of the store's services at `options.address`, as one object. */
export function createStoreClient(options: GrpcClientOptions): StoreClient {
  const store = createGrpcClient(storeV1.StoreService, options);
  const domains = [
    createGrpcClient(storeV1.EntriesService, options),
    createGrpcClient(storeV1.SharingService, options),
    createGrpcClient(storeV1.IdempotencyService, options),
    createGrpcClient(storeV1.ApiKeysService, options),
    createGrpcClient(storeV1.HistoryService, options),
    createGrpcClient(storeV1.ReviewService, options),
    createGrpcClient(storeV1.AuditService, options),
    createGrpcClient(storeV1.MemoriesService, options),
    createGrpcClient(storeV1.HandoffsService, options),
    createGrpcClient(storeV1.SessionsService, options),
    createGrpcClient(storeV1.ArtifactsService, options),
    createGrpcClient(storeV1.CollectionsService, options),
    createGrpcClient(storeV1.PublicationsService, options),
    createGrpcClient(storeV1.ResourceWatchService, options),
  ];
  const close = () => {
    store.close();
    for (const client of domains) client.close();
  };
  // No method name is served by two of these services, so none shadows another.
  return Object.assign({}, ...domains, store, { close }) as StoreClient;
}
