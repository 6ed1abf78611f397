import type { Logger, ProviderClock, RunningService } from "@context-hub/common";
import { createHttpProviderClient, startGrpcService } from "@context-hub/common";
import { embedderV1 } from "@context-hub/proto";
import { createBuiltinEmbeddingProvider } from "./builtin-embedding-provider.js";
import { createHttpEmbeddingProvider, type EmbeddingApi } from "./clients/http-embedding-provider.js";
import { createOllamaEmbeddingsApi } from "./clients/ollama-embeddings.js";
import { createOpenAiEmbeddingsApi } from "./clients/openai-embeddings.js";
import { createVoyageEmbeddingsApi } from "./clients/voyage-embeddings.js";
import type { EmbedderConfig } from "./config.js";
import { createEmbedder } from "./embedder.js";
import { createEmbedderTextWork, type EmbedderTextWork } from "./embedder-text-work.js";
import type { EmbeddingProvider } from "./embedding-provider.js";
import { createEmbedderHandlers } from "./server.js";

export {
  loadEmbedderConfig,
  embedderProviders,
  type EmbedderConfig,
  type EmbedderHttpSettings,
  type EmbedderProviderName,
} from "./config.js";
export type { EmbeddingInputType, EmbeddingModel, EmbeddingProvider } from "./embedding-provider.js";
export {
  createHttpEmbeddingProvider,
  type EmbeddingApi,
  type HttpEmbeddingProviderOptions,
} from "./clients/http-embedding-provider.js";
export {
  builtinEmbeddingModel,
  builtinEmbeddingModelIds,
  builtinEmbeddingModels,
  createBuiltinEmbeddingProvider,
  type BuiltinEmbeddingLayout,
  type BuiltinEmbeddingModelId,
} from "./builtin-embedding-provider.js";
export { createEmbedderTextWork, type EmbedderTextWork, type EmbedderTextWorkOptions } from "./embedder-text-work.js";
export {
  createEmbedder,
  type Embedder,
  type EmbeddedChunk,
  type EmbedderDescription,
  type EmbedderOptions,
} from "./embedder.js";

export interface EmbedderDependencies {
  /** Replaces the provider chosen by `config.provider` (tests, custom runtimes). */
  provider?: EmbeddingProvider;
}

/**
 * The provider `config.provider` names; the built-in one embeds long texts in `work`'s worker threads. An HTTP
 * provider's retries wait on `clock` (tests; the real clock by default).
 */
export function createEmbeddingProvider(
  config: EmbedderConfig,
  work: EmbedderTextWork,
  logger: Logger,
  clock: ProviderClock = {},
): EmbeddingProvider {
  switch (config.provider) {
    case "builtin":
      return createBuiltinEmbeddingProvider({
        cacheDir: config.cacheDir,
        model: config.builtinModel,
        work,
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
    case "openai":
    case "ollama":
    case "voyage": {
      const http = config.http;
      if (http === undefined)
        throw new Error(
          `EMBEDDER_PROVIDER ${config.provider} has no HTTP settings; build the config with loadEmbedderConfig`,
        );
      const apiKey = http.apiKey?.reveal();
      const client = createHttpProviderClient({
        provider: config.provider,
        operation: "embeddings",
        model: http.model,
        baseUrl: http.baseUrl,
        headers: apiKey === undefined ? {} : { authorization: `Bearer ${apiKey}` },
        secrets: [apiKey],
        timeoutMs: http.timeoutMs,
        maxRetries: http.maxRetries,
        settingsPrefix: "EMBEDDER",
        logger,
        ...clock,
      });
      const apiOptions = { model: http.model, requestDimension: http.sendDimension ? http.dimension : undefined };
      const api: EmbeddingApi =
        config.provider === "openai"
          ? createOpenAiEmbeddingsApi(client, apiOptions)
          : config.provider === "voyage"
            ? createVoyageEmbeddingsApi(client, apiOptions)
            : createOllamaEmbeddingsApi(client, apiOptions);
      return createHttpEmbeddingProvider({
        provider: config.provider,
        model: http.model,
        api,
        dimension: http.dimension,
        batchSize: http.batchSize,
        concurrency: http.concurrency,
        logger,
      });
    }
  }
}

/**
 * Starts the embedder: gRPC EmbedderService plus the ops endpoint. Returns as
 * soon as it listens and warms the provider in the background; /readyz
 * answers 503 until the provider is ready, and calls arriving earlier wait
 * for the warm-up instead of failing.
 */
export async function startEmbedder(
  config: EmbedderConfig,
  logger: Logger,
  dependencies: EmbedderDependencies = {},
): Promise<RunningService> {
  // Only the built-in provider's workers need the word vectors; with another provider they only chunk.
  const builtin = dependencies.provider === undefined && config.provider === "builtin";
  const work = createEmbedderTextWork({
    workers: config.textWorkers,
    budgetMs: config.textBudgetMs,
    cacheDir: builtin ? config.cacheDir : undefined,
  });
  const provider = dependencies.provider ?? createEmbeddingProvider(config, work, logger);
  const embedder = createEmbedder({
    provider,
    work,
    chunkSize: config.chunkSize,
    chunkOverlap: config.chunkOverlap,
    maxTextChars: config.maxTextChars,
  });
  provider.warm().catch((error: unknown) => logger.error({ err: error }, "embedding provider failed to warm up"));
  if (!builtin)
    work.warm().catch((error: unknown) => logger.error({ err: error }, "embedder worker thread failed to start"));
  try {
    return await startGrpcService({
      name: "embedder",
      host: config.host,
      port: config.port,
      opsPort: config.opsPort,
      logger,
      register: (builder) => builder.addService(embedderV1.EmbedderService, createEmbedderHandlers(embedder)),
      isReady: () => provider.isReady(),
      onClose: async () => {
        await provider.close();
        await work.close();
      },
    });
  } catch (error) {
    await work.close();
    throw error;
  }
}
