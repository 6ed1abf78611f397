/**
 * The package contexthub.store.v1 but for SearchService: the store's own
 * service (StoreService, with the messages its domain services share) and one
 * service per domain, each generated from its own file.
 */
export * from "./gen/contexthub/store/v1/store_pb.js";
export * from "./gen/contexthub/store/v1/entries_pb.js";
export * from "./gen/contexthub/store/v1/sharing_pb.js";
export * from "./gen/contexthub/store/v1/idempotency_pb.js";
export * from "./gen/contexthub/store/v1/api_keys_pb.js";
export * from "./gen/contexthub/store/v1/history_pb.js";
export * from "./gen/contexthub/store/v1/review_pb.js";
export * from "./gen/contexthub/store/v1/audit_pb.js";
export * from "./gen/contexthub/store/v1/memories_pb.js";
export * from "./gen/contexthub/store/v1/handoffs_pb.js";
export * from "./gen/contexthub/store/v1/transfer_pb.js";
export * from "./gen/contexthub/store/v1/sessions_pb.js";
export * from "./gen/contexthub/store/v1/artifacts_pb.js";
export * from "./gen/contexthub/store/v1/collections_pb.js";
export * from "./gen/contexthub/store/v1/publications_pb.js";
export * from "./gen/contexthub/store/v1/resource_watch_pb.js";
