// Shared HTTP client pieces for model providers (embedder, summarizer, reranker): timeouts, retries, errors, config checks.
export * from "./retry-policy.js";
export * from "./concurrency.js";
export * from "./http-provider-client.js";
export * from "./provider-wording.js";
export * from "./provider-config.js";
