import { invalidArgument, isInlineText, observeProviderRequest, providerError } from "@context-hub/common";
import { chunkText, type TextChunk } from "@context-hub/text";
import type { EmbedderTextWork } from "./embedder-text-work.js";
import type { EmbeddingInputType, EmbeddingModel, EmbeddingProvider } from "./embedding-provider.js";

export interface EmbedderOptions {
  provider: EmbeddingProvider;
  /** Where long texts are chunked: off the thread that answers calls, under a time budget. */
  work: Pick<EmbedderTextWork, "chunk">;
  chunkSize: number;
  chunkOverlap: number;
  /** Longest text accepted, in UTF-16 code units. */
  maxTextChars: number;
}

export interface EmbeddedChunk extends TextChunk {
  vector: Float32Array;
}

export interface EmbedderDescription extends EmbeddingModel {
  chunkSize: number;
  chunkOverlap: number;
}

export interface Embedder {
  describe(): EmbedderDescription;
  /**
   * Chunks every text (see `chunkText`) and embeds all chunks of all texts in
   * one provider call. One result per text, in order; an empty or blank text
   * has no chunks.
   *
   * @throws ContextHubError INVALID_ARGUMENT when a text exceeds `maxTextChars`;
   *   TEXT_BUDGET_EXCEEDED when chunking or built-in embedding takes longer than its budget.
   */
  embedDocuments(texts: readonly string[], signal?: AbortSignal): Promise<EmbeddedChunk[][]>;
  /**
   * Embeds each query whole, in one provider call.
   *
   * @throws ContextHubError INVALID_ARGUMENT when a query exceeds `maxTextChars`.
   */
  embedQueries(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]>;
}

/** The embedder's domain: validation, chunking and batching around a provider. */
export function createEmbedder(options: EmbedderOptions): Embedder {
  const { provider, work, chunkSize, chunkOverlap, maxTextChars } = options;
  const chunkOptions = { size: chunkSize, overlap: chunkOverlap };

  const checkSizes = (texts: readonly string[], what: string) => {
    texts.forEach((text, index) => {
      if (text.length > maxTextChars) {
        throw invalidArgument(
          `${what}[${index}] has ${text.length} characters; at most ${maxTextChars} are accepted`,
          "shorten the text or split it into several entries",
        );
      }
    });
  };

  const embedChecked = async (
    texts: string[],
    inputType: EmbeddingInputType,
    signal: AbortSignal | undefined,
  ): Promise<Float32Array[]> => {
    if (texts.length === 0) return [];
    const { provider: name, model } = provider.describe();
    const vectors = await observeProviderRequest(name, "embed", () => provider.embed({ texts, inputType }, signal));
    if (vectors.length !== texts.length) {
      throw providerError(
        { provider: name, operation: "embeddings", model },
        `${vectors.length} vectors for ${texts.length} texts`,
        {
          remedy: "check that EMBEDDER_PROVIDER and EMBEDDER_BASE_URL point at a server speaking this API",
        },
      );
    }
    return vectors;
  };

  return {
    describe: () => ({ ...provider.describe(), chunkSize, chunkOverlap }),
    async embedDocuments(texts, signal) {
      checkSizes(texts, "texts");
      // Short texts are chunked at once; long ones in a worker (see isInlineText).
      const chunksPerText = isInlineText(texts)
        ? texts.map((text) => chunkText(text, chunkOptions))
        : await work.chunk([...texts], chunkOptions, signal);
      const chunkTexts = chunksPerText.flatMap((chunks, index) =>
        chunks.map((chunk) => (texts[index] as string).slice(chunk.start, chunk.end)),
      );
      const vectors = await embedChecked(chunkTexts, "document", signal);
      let next = 0;
      return chunksPerText.map((chunks) =>
        chunks.map((chunk) => ({ ...chunk, vector: vectors[next++] as Float32Array })),
      );
    },
    async embedQueries(texts, signal) {
      checkSizes(texts, "texts");
      return embedChecked([...texts], "query", signal);
    },
  };
}
