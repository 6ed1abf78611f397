import type { Logger, ProviderClock, RunningService } from "@context-hub/common";
import { createHttpProviderClient, startGrpcService } from "@context-hub/common";
import { rerankerV1 } from "@context-hub/proto";
import { createBuiltinRerankProvider } from "./builtin-rerank-provider.js";
import { createCohereRerankApi } from "./clients/cohere-rerank.js";
import { createHttpRerankProvider } from "./clients/http-rerank-provider.js";
import { createTeiRerankApi } from "./clients/tei-rerank.js";
import { createVoyageRerankApi } from "./clients/voyage-rerank.js";
import type { RerankerConfig } from "./config.js";
import type { RerankProvider } from "./rerank-provider.js";
import { createReranker } from "./reranker.js";
import { createRerankerHandlers } from "./server.js";

export {
  loadRerankerConfig,
  rerankerProviders,
  type RerankerConfig,
  type RerankerHttpSettings,
  type RerankerProviderName,
} from "./config.js";
export {
  createHttpRerankProvider,
  type HttpRerankProviderOptions,
  type RerankApi,
} from "./clients/http-rerank-provider.js";
export type { RerankProvider } from "./rerank-provider.js";
export { builtinRerankModel, createBuiltinRerankProvider } from "./builtin-rerank-provider.js";
export { relevanceWeights, scoreRelevance, type RelevanceBreakdown } from "./relevance.js";
export { createReranker, type RankedPassage, type Reranker, type RerankerOptions } from "./reranker.js";

export interface RerankerDependencies {
  /** Replaces the provider chosen by `config.provider` (tests, custom runtimes). */
  provider?: RerankProvider;
}

/** The provider `config.provider` names; an HTTP provider's retries wait on `clock` (tests; the real clock by default). */
export function createRerankProvider(
  config: RerankerConfig,
  logger: Logger,
  clock: ProviderClock = {},
): RerankProvider {
  switch (config.provider) {
    case "builtin":
      return createBuiltinRerankProvider({
        cacheDir: config.cacheDir,
        onLoaded(vectors) {
          const { builtCache, loadMs, cacheFile, cacheWriteError } = vectors.origin;
          logger.info(
            { builtCache, loadMs: Math.round(loadMs), cacheFile, words: vectors.size },
            "word vectors loaded",
          );
          if (cacheWriteError !== undefined)
            logger.warn(
              { cacheFile, error: cacheWriteError },
              "word vector cache could not be written; the next start will rebuild it",
            );
        },
      });
    case "cohere":
    case "voyage":
    case "tei": {
      const http = config.http;
      if (http === undefined)
        throw new Error(
          `RERANKER_PROVIDER ${config.provider} has no HTTP settings; build the config with loadRerankerConfig`,
        );
      const apiKey = http.apiKey?.reveal();
      const client = createHttpProviderClient({
        provider: config.provider,
        operation: "rerank",
        model: http.model,
        baseUrl: http.baseUrl,
        headers: apiKey === undefined ? {} : { authorization: `Bearer ${apiKey}` },
        secrets: [apiKey],
        timeoutMs: http.timeoutMs,
        maxRetries: http.maxRetries,
        settingsPrefix: "RERANKER",
        logger,
        ...clock,
      });
      const api =
        config.provider === "cohere"
          ? createCohereRerankApi(client, { model: http.model })
          : config.provider === "voyage"
            ? createVoyageRerankApi(client, { model: http.model })
            : createTeiRerankApi(client);
      return createHttpRerankProvider({
        provider: config.provider,
        model: http.model,
        api,
        batchSize: http.batchSize,
        concurrency: http.concurrency,
      });
    }
  }
}

/**
 * Starts the reranker: gRPC RerankerService plus the ops endpoint. Returns as
 * soon as it listens and warms the provider in the background; /readyz
 * answers 503 until the provider is ready, and calls arriving earlier wait
 * for the warm-up instead of failing.
 */
export async function startReranker(
  config: RerankerConfig,
  logger: Logger,
  dependencies: RerankerDependencies = {},
): Promise<RunningService> {
  const provider = dependencies.provider ?? createRerankProvider(config, logger);
  const reranker = createReranker({ provider, maxPassages: config.maxPassages, maxTextChars: config.maxTextChars });
  provider.warm().catch((error: unknown) => logger.error({ err: error }, "rerank provider failed to warm up"));
  return startGrpcService({
    name: "reranker",
    host: config.host,
    port: config.port,
    opsPort: config.opsPort,
    logger,
    register: (builder) => builder.addService(rerankerV1.RerankerService, createRerankerHandlers(reranker)),
    isReady: () => provider.isReady(),
    onClose: () => provider.close(),
  });
}
