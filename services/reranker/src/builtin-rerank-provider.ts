import { providerError } from "@context-hub/common";
import { createWordVectorHandle, type WordVectors } from "@context-hub/text";
import { scoreRelevance } from "./relevance.js";
import type { RerankProvider } from "./rerank-provider.js";

/** Model id of the built-in reranker: BM25 over the call's passages, proximity and phrase signals, plus GloVe similarity. */
export const builtinRerankModel = "builtin-bm25-glove-v2";

export interface BuiltinRerankProviderOptions {
  /** Where the word-vector cache lives. */
  cacheDir: string;
  /** Told once the vectors are in memory (so the service can log load time and cache problems). */
  onLoaded?: (vectors: WordVectors) => void;
}

/** The network-free provider: `scoreRelevance` over the wink GloVe vectors. Deterministic. */
export function createBuiltinRerankProvider(options: BuiltinRerankProviderOptions): RerankProvider {
  const handle = createWordVectorHandle(options.cacheDir, options.onLoaded);
  const load = async (): Promise<WordVectors> => {
    try {
      return await handle.load();
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw providerError(
        { provider: "builtin", operation: "rerank", model: builtinRerankModel },
        `the word vectors in ${options.cacheDir} could not be loaded: ${reason}`,
        {
          cause: error,
          remedy: "check RERANKER_CACHE_DIR: a directory this process can read and write",
        },
      );
    }
  };
  return {
    describe: () => ({ provider: "builtin", model: builtinRerankModel }),
    async score(query, passages) {
      const vectors = handle.loaded() ?? (await load());
      return scoreRelevance(query, passages, vectors).map((breakdown) => breakdown.score);
    },
    async warm() {
      await load();
    },
    isReady: () => handle.loaded() !== undefined,
    // The vectors are shared per process (the embedder may hold them too), so there is nothing to release.
    close: async () => {},
  };
}
