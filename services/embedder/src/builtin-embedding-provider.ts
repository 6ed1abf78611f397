import { isInlineText, providerError, type ContextHubError } from "@context-hub/common";
import { createWordVectorHandle, embedText, type WordVectors } from "@context-hub/text";
import type { EmbedderTextWork } from "./embedder-text-work.js";
import type { EmbeddingModel, EmbeddingProvider } from "./embedding-provider.js";

/**
 * Model id of the built-in embeddings: SIF-weighted GloVe 100-d averages (see
 * @context-hub/text `embedText`). Change it whenever `embedText` or the word
 * vectors change, since stored vectors are only comparable within one id.
 */
export const builtinEmbeddingModel = "builtin-glove-100d-v2";

const model: EmbeddingModel = { provider: "builtin", model: builtinEmbeddingModel, dimension: 100 };
const source = { provider: model.provider, operation: "embeddings", model: model.model };
const remedy = "check EMBEDDER_CACHE_DIR: a directory this process can read and write";

/** The PROVIDER_ERROR of word vectors in `cacheDir` that could not be loaded, in this thread or a worker. */
export function toWordVectorLoadError(cacheDir: string, error: unknown): ContextHubError {
  const reason = error instanceof Error ? error.message : String(error);
  return providerError(source, `the word vectors in ${cacheDir} could not be loaded: ${reason}`, { cause: error, remedy });
}

export interface BuiltinEmbeddingProviderOptions {
  /** Where the word-vector cache lives. */
  cacheDir: string;
  /** Where texts too long to embed on the calling thread are embedded (its workers read the same `cacheDir`). */
  work: Pick<EmbedderTextWork, "embed" | "warm">;
  /** Told once the vectors are in memory (so the service can log load time and cache problems). */
  onLoaded?: (vectors: WordVectors) => void;
}

/**
 * The network-free provider: embeds each text with `embedText` over the
 * wink GloVe vectors. Deterministic; about 0.25 ms per 1 KB text on one core.
 * A call whose texts are short (see `isInlineText`: search queries) is
 * embedded at once on the calling thread; longer ones in `work`'s worker
 * threads, under its time budget.
 */
export function createBuiltinEmbeddingProvider(options: BuiltinEmbeddingProviderOptions): EmbeddingProvider {
  const handle = createWordVectorHandle(options.cacheDir, options.onLoaded);
  const load = async (): Promise<WordVectors> => {
    let vectors: WordVectors;
    try {
      vectors = await handle.load();
    } catch (error) {
      throw toWordVectorLoadError(options.cacheDir, error);
    }
    if (vectors.dimension !== model.dimension) throw providerError(source, `the word vectors have ${vectors.dimension} dimensions, expected ${model.dimension}`, { remedy });
    return vectors;
  };

  return {
    describe: () => ({ ...model }),
    async embed({ texts }, signal) {
      const vectors = handle.loaded() ?? (await load());
      if (!isInlineText(texts)) return options.work.embed(texts, signal);
      return texts.map((text) => embedText(text, vectors));
    },
    async warm() {
      await Promise.all([load(), options.work.warm()]);
    },
    isReady: () => handle.loaded() !== undefined,
    // The vectors are shared per process (the reranker may hold them too), so there is nothing to release.
    close: async () => {},
  };
}
