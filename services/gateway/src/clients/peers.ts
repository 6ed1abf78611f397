import { createGrpcClient, type GrpcClient } from "@context-hub/common";
import { embedderV1, rerankerV1, searchV1, storeV1, summarizerV1 } from "@context-hub/proto";
import type { GatewayConfig } from "../config.js";

export type StoreClient = GrpcClient<typeof storeV1.StoreService>;
/** SearchService, served by the store process at the store's address. */
export type SearchClient = GrpcClient<typeof searchV1.SearchService>;
export type EmbedderClient = GrpcClient<typeof embedderV1.EmbedderService>;
export type SummarizerClient = GrpcClient<typeof summarizerV1.SummarizerService>;
export type RerankerClient = GrpcClient<typeof rerankerV1.RerankerService>;

/** The gateway's connections to the services it orchestrates. */
export interface Peers {
  store: StoreClient;
  search: SearchClient;
  embedder: EmbedderClient;
  /** Absent when summaries are turned off. */
  summarizer: SummarizerClient | undefined;
  reranker: RerankerClient;
  close(): void;
}

/** Opens gRPC channels to every peer, each with the deadline its work allows. */
export function createPeers(config: GatewayConfig): Peers {
  const store = createGrpcClient(storeV1.StoreService, { address: config.peers.store, peer: "store", deadlineMs: config.timeouts.storeMs });
  const search = createGrpcClient(searchV1.SearchService, { address: config.peers.store, peer: "store", deadlineMs: config.timeouts.storeMs });
  const embedder = createGrpcClient(embedderV1.EmbedderService, { address: config.peers.embedder, peer: "embedder", deadlineMs: config.timeouts.embedMs });
  const summarizer = config.summariesEnabled
    ? createGrpcClient(summarizerV1.SummarizerService, { address: config.peers.summarizer, peer: "summarizer", deadlineMs: config.timeouts.summaryMs })
    : undefined;
  const reranker = createGrpcClient(rerankerV1.RerankerService, { address: config.peers.reranker, peer: "reranker", deadlineMs: config.timeouts.rerankMs });
  return {
    store,
    search,
    embedder,
    summarizer,
    reranker,
    close() {
      store.close();
      search.close();
      embedder.close();
      summarizer?.close();
      reranker.close();
    },
  };
}
