import type { Logger, RunningService } from "@context-hub/common";
import { startGrpcService } from "@context-hub/common";
import { embedderV1 } from "@context-hub/proto";
import { createBuiltinEmbeddingProvider } from "./builtin-embedding-provider.js";
import type { EmbedderConfig } from "./config.js";
import { createEmbedder } from "./embedder.js";
import type { EmbeddingProvider } from "./embedding-provider.js";
import { createEmbedderHandlers } from "./server.js";

export { loadEmbedderConfig, embedderProviders, type EmbedderConfig } from "./config.js";
export type { EmbeddingModel, EmbeddingProvider } from "./embedding-provider.js";
export { builtinEmbeddingModel, createBuiltinEmbeddingProvider } from "./builtin-embedding-provider.js";
export { createEmbedder, type Embedder, type EmbeddedChunk, type EmbedderDescription, type EmbedderOptions } from "./embedder.js";

export interface EmbedderDependencies {
  /** Replaces the provider chosen by `config.provider` (tests, custom runtimes). */
  provider?: EmbeddingProvider;
}

/** The provider `config.provider` names. */
export function createEmbeddingProvider(config: EmbedderConfig, logger: Logger): EmbeddingProvider {
  switch (config.provider) {
    case "builtin":
      return createBuiltinEmbeddingProvider({
        cacheDir: config.cacheDir,
        onLoaded(vectors) {
          const { builtCache, loadMs, cacheFile, cacheWriteError } = vectors.origin;
          logger.info({ builtCache, loadMs: Math.round(loadMs), cacheFile, words: vectors.size }, "word vectors loaded");
          if (cacheWriteError !== undefined) logger.warn({ cacheFile, error: cacheWriteError }, "word vector cache could not be written; the next start will rebuild it");
        },
      });
  }
}

/**
 * Starts the embedder: gRPC EmbedderService plus the ops endpoint. Returns as
 * soon as it listens and warms the provider in the background; /readyz
 * answers 503 until the provider is ready, and calls arriving earlier wait
 * for the warm-up instead of failing.
 */
export async function startEmbedder(config: EmbedderConfig, logger: Logger, dependencies: EmbedderDependencies = {}): Promise<RunningService> {
  const provider = dependencies.provider ?? createEmbeddingProvider(config, logger);
  const embedder = createEmbedder({ provider, chunkSize: config.chunkSize, chunkOverlap: config.chunkOverlap, maxTextChars: config.maxTextChars });
  provider.warm().catch((error: unknown) => logger.error({ err: error }, "embedding provider failed to warm up"));
  return startGrpcService({
    name: "embedder",
    host: config.host,
    port: config.port,
    opsPort: config.opsPort,
    logger,
    register: (builder) => builder.addService(embedderV1.EmbedderService, createEmbedderHandlers(embedder)),
    isReady: () => provider.isReady(),
    onClose: () => provider.close(),
  });
}
