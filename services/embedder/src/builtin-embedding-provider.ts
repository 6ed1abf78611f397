import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import { providerError } from "@context-hub/common";
import { createWordVectorHandle, embedText, type WordVectors } from "@context-hub/text";
import type { EmbeddingModel, EmbeddingProvider } from "./embedding-provider.js";

/**
 * Model id of the built-in embeddings: SIF-weighted GloVe 100-d averages (see
 * @context-hub/text `embedText`). Change it whenever `embedText` or the word
 * vectors change, since stored vectors are only comparable within one id.
 */
export const builtinEmbeddingModel = "builtin-glove-100d-v1";

export interface BuiltinEmbeddingProviderOptions {
  /** Where the word-vector cache lives. */
  cacheDir: string;
  /** Told once the vectors are in memory (so the service can log load time and cache problems). */
  onLoaded?: (vectors: WordVectors) => void;
}

// About 15 ms of work between yields, so health checks and other calls stay answered during big batches.
const textsPerSlice = 64;

/**
 * The network-free provider: embeds each text with `embedText` over the
 * wink GloVe vectors. Deterministic; about 0.15 ms per 1 KB text on one core.
 */
export function createBuiltinEmbeddingProvider(options: BuiltinEmbeddingProviderOptions): EmbeddingProvider {
  const model: EmbeddingModel = { provider: "builtin", model: builtinEmbeddingModel, dimension: 100 };
  const source = { provider: model.provider, operation: "embeddings", model: model.model };
  const remedy = "check EMBEDDER_CACHE_DIR: a directory this process can read and write";
  const handle = createWordVectorHandle(options.cacheDir, options.onLoaded);
  const load = async (): Promise<WordVectors> => {
    let vectors: WordVectors;
    try {
      vectors = await handle.load();
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw providerError(source, `the word vectors in ${options.cacheDir} could not be loaded: ${reason}`, { cause: error, remedy });
    }
    if (vectors.dimension !== model.dimension) throw providerError(source, `the word vectors have ${vectors.dimension} dimensions, expected ${model.dimension}`, { remedy });
    return vectors;
  };

  return {
    describe: () => ({ ...model }),
    async embed({ texts }, signal) {
      const vectors = handle.loaded() ?? (await load());
      const result: Float32Array[] = [];
      for (let index = 0; index < texts.length; index++) {
        if (index > 0 && index % textsPerSlice === 0) {
          await yieldToEventLoop();
          signal?.throwIfAborted();
        }
        result.push(embedText(texts[index] as string, vectors));
      }
      return result;
    },
    async warm() {
      await load();
    },
    isReady: () => handle.loaded() !== undefined,
    // The vectors are shared per process (the reranker may hold them too), so there is nothing to release.
    close: async () => {},
  };
}
