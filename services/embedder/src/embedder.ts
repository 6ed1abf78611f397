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
   * one provider call, each distinct chunk text once. One result per text, in
   * order; an empty or blank text has no chunks. A chunk whose vector repeats
   * an earlier chunk's of the same text is left out (its ordinal with it): it
   * would rank its entry exactly as that chunk does, and storing and indexing
   * hundreds of copies of one vector (a text of one repeated character, or
   * without a word the model knows) would cost every caller of the store.
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

/**
 * The chunk texts of every text, each distinct one once (a megabyte of one repeated character is hundreds of
 * identical chunks), and for each text's chunks the index of its text among them.
 */
function distinctChunkTexts(
  texts: readonly string[],
  chunksPerText: readonly (readonly TextChunk[])[],
): { texts: string[]; indexOf: number[][] } {
  const distinct = new Map<string, number>();
  const indexOf = chunksPerText.map((chunks, index) =>
    chunks.map((chunk) => {
      const text = (texts[index] as string).slice(chunk.start, chunk.end);
      let at = distinct.get(text);
      if (at === undefined) distinct.set(text, (at = distinct.size));
      return at;
    }),
  );
  return { texts: [...distinct.keys()], indexOf };
}

/** A vector's exact bits, as a key. */
function vectorKey(vector: Float32Array): string {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString("latin1");
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
      const distinct = distinctChunkTexts(texts, chunksPerText);
      const vectors = await embedChecked(distinct.texts, "document", signal);
      return chunksPerText.map((chunks, index) => {
        const seen = new Set<string>();
        return chunks.flatMap((chunk, position) => {
          const vector = vectors[distinct.indexOf[index]![position]!] as Float32Array;
          const key = vectorKey(vector);
          if (seen.has(key)) return [];
          seen.add(key);
          return [{ ...chunk, vector }];
        });
      });
    },
    async embedQueries(texts, signal) {
      checkSizes(texts, "texts");
      return embedChecked([...texts], "query", signal);
    },
  };
}
