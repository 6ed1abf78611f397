/** Generated message and service descriptors of every Context Hub contract, one namespace per package. */
export * as commonV1 from "./gen/contexthub/common/v1/principal_pb.js";
/** The store's services, one per domain, and the messages they share (package contexthub.store.v1). */
export * as storeV1 from "./store-v1.js";
/** SearchService shares the package contexthub.store.v1 with the store's other services (served by the same process), in its own namespace. */
export * as searchV1 from "./gen/contexthub/store/v1/search_pb.js";
export * as embedderV1 from "./gen/contexthub/embedder/v1/embedder_pb.js";
export * as summarizerV1 from "./gen/contexthub/summarizer/v1/summarizer_pb.js";
export * as rerankerV1 from "./gen/contexthub/reranker/v1/reranker_pb.js";
export * as healthV1 from "./gen/grpc/health/v1/health_pb.js";
