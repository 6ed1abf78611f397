import { isInlineText, providerError, type ContextHubError } from "@context-hub/common";
import { createWordVectorHandle, embedText, type WordVectors } from "@context-hub/text";
import type { EmbedderTextWork } from "./embedder-text-work.js";
import type { EmbeddingModel, EmbeddingProvider } from "./embedding-provider.js";

/** The layout of one built-in model's vectors over the word vectors (see @context-hub/text `embedText`). */
export interface BuiltinEmbeddingLayout {
  dimension: number;
  /** Dimensions after the word vectors' that hold each term's exact form alone; 0 mixes it into theirs. */
  lexicalDimensions: number;
}

/**
 * The built-in models by id, oldest first. Vectors are only comparable within one id, so a
 * change to `embedText`, its weights or the word vectors is a new id here;
 * older ids stay selectable (`EMBEDDER_BUILTIN_MODEL`) so stored vectors can
 * be searched until `context-hub reembed` has moved them.
 * - v2: SIF-weighted GloVe 100-d with each stem's hashed n-gram vector added in.
 * - v3: the same GloVe part (100 dimensions) with the stems' hashed vectors in
 *   156 dimensions of their own, so exact words no longer blur the meaning
 *   (semantic nDCG@10 Cranfield 0.242 → 0.287, CISI 0.276 → 0.351; docs/embedder.md).
 */
export const builtinEmbeddingModelIds = ["builtin-glove-100d-v2", "builtin-glove-256d-v3"] as const;

export type BuiltinEmbeddingModelId = (typeof builtinEmbeddingModelIds)[number];

/** Each built-in model's layout. */
export const builtinEmbeddingModels: Readonly<Record<BuiltinEmbeddingModelId, BuiltinEmbeddingLayout>> = {
  "builtin-glove-100d-v2": { dimension: 100, lexicalDimensions: 0 },
  "builtin-glove-256d-v3": { dimension: 256, lexicalDimensions: 156 },
};

/** The built-in model used unless `EMBEDDER_BUILTIN_MODEL` names another. */
export const builtinEmbeddingModel: BuiltinEmbeddingModelId = "builtin-glove-256d-v3";

const wordDimension = 100;
const remedy = "check EMBEDDER_CACHE_DIR: a directory this process can read and write";

/** The PROVIDER_ERROR of word vectors in `cacheDir` that could not be loaded, in this thread or a worker. */
export function toWordVectorLoadError(
  cacheDir: string,
  error: unknown,
  modelId: string = builtinEmbeddingModel,
): ContextHubError {
  const source = { provider: "builtin", operation: "embeddings", model: modelId };
  const reason = error instanceof Error ? error.message : String(error);
  return providerError(source, `the word vectors in ${cacheDir} could not be loaded: ${reason}`, {
    cause: error,
    remedy,
  });
}

export interface BuiltinEmbeddingProviderOptions {
  /** Where the word-vector cache lives. */
  cacheDir: string;
  /** Which built-in model embeds; `builtinEmbeddingModel` when unset. */
  model?: BuiltinEmbeddingModelId;
  /** Where texts too long to embed on the calling thread are embedded (its workers read the same `cacheDir`). */
  work: Pick<EmbedderTextWork, "embed" | "warm">;
  /** Told once the vectors are in memory (so the service can log load time and cache problems). */
  onLoaded?: (vectors: WordVectors) => void;
}

/**
 * The network-free provider: embeds each text with `embedText` over the
 * wink GloVe vectors, laid out as `options.model` says. Deterministic; about 0.25 ms per 1 KB text on one core.
 * A call whose texts are short (see `isInlineText`: search queries) is
 * embedded at once on the calling thread; longer ones in `work`'s worker
 * threads, under its time budget.
 */
export function createBuiltinEmbeddingProvider(options: BuiltinEmbeddingProviderOptions): EmbeddingProvider {
  const modelId = options.model ?? builtinEmbeddingModel;
  const layout = builtinEmbeddingModels[modelId];
  const model: EmbeddingModel = { provider: "builtin", model: modelId, dimension: layout.dimension };
  const source = { provider: model.provider, operation: "embeddings", model: model.model };
  const embedOptions = { lexicalDimensions: layout.lexicalDimensions };
  const handle = createWordVectorHandle(options.cacheDir, options.onLoaded);
  const load = async (): Promise<WordVectors> => {
    let vectors: WordVectors;
    try {
      vectors = await handle.load();
    } catch (error) {
      throw toWordVectorLoadError(options.cacheDir, error, modelId);
    }
    if (vectors.dimension !== wordDimension)
      throw providerError(source, `the word vectors have ${vectors.dimension} dimensions, expected ${wordDimension}`, {
        remedy,
      });
    return vectors;
  };

  return {
    describe: () => ({ ...model }),
    async embed({ texts }, signal) {
      const vectors = handle.loaded() ?? (await load());
      if (!isInlineText(texts)) return options.work.embed(texts, embedOptions, signal);
      return texts.map((text) => embedText(text, vectors, embedOptions));
    },
    async warm() {
      await Promise.all([load(), options.work.warm()]);
    },
    isReady: () => handle.loaded() !== undefined,
    // The vectors are shared per process (the reranker may hold them too), so there is nothing to release.
    close: async () => {},
  };
}
