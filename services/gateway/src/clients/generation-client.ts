/**
 * The generation workers as the write path calls them: embeddings and
 * summaries of texts, each worker's calls joined across writes arriving
 * together (see joinCalls), and the store's Generated message assembled
 * here from their answers.
 */
import { contentHash } from "@context-hub/common";
import type { commonV1, embedderV1, storeV1 } from "@context-hub/proto";
import type { GenerationInput } from "../write-types.js";
import { joinCalls } from "./joined-calls.js";
import type { Peers } from "./peers.js";
import { toProtoSource } from "./proto-enums.js";

/** One text's generated data, as the store takes it; opaque to the write path. */
export type Generated = storeV1.Generated;

/** One text's embedding, with the model that made it. */
export interface EmbeddedText {
  model: string;
  dimension: number;
  document: embedderV1.EmbeddedDocument;
}

/** One text's summary and its node (section) summaries. */
export interface SummarizedText {
  summary: string;
  sections: commonV1.NodeSummary[];
}

/**
 * How far the worker calls of writes arriving together are joined: the
 * summarizer's limit of texts per call, and small texts only, so that a long
 * text's generation never holds up another write (a text this long or longer
 * travels alone).
 */
const joinLimits = { maxItems: 100, maxWeight: 64 * 1024 };

/** What a text needs when no summarizer is configured: no summary and no sections. */
export const noSummary = (): SummarizedText => ({ summary: "", sections: [] });

/** The generation clients over the embedder and, when summaries are on, the summarizer. */
export function createGenerationClient(
  peers: Pick<Peers, "embedder" | "summarizer">,
  options: { sectionSummaryTimeoutMs: number },
) {
  const { embedder, summarizer } = peers;
  const embed = joinCalls<string, EmbeddedText>(
    async (texts, signal) => {
      const reply = await embedder.embedDocuments({ texts }, signal === undefined ? {} : { signal });
      if (reply.documents.length !== texts.length)
        throw new Error(`the embedder returned ${reply.documents.length} documents for ${texts.length} texts`);
      return reply.documents.map((document) => ({ model: reply.model, dimension: reply.dimension, document }));
    },
    joinLimits,
    (text) => text.length,
  );
  const summarize =
    summarizer === undefined
      ? undefined
      : joinCalls<GenerationInput, SummarizedText>(
          async (inputs, signal) => {
            const reply = await summarizer.summarize(
              {
                inputs: inputs.map((input) => ({ text: input.text, source: toProtoSource(input.source) })),
                sectionBudgetMs: options.sectionSummaryTimeoutMs,
              },
              signal === undefined ? {} : { signal },
            );
            if (reply.summaries.length !== inputs.length)
              throw new Error(`the summarizer returned ${reply.summaries.length} summaries for ${inputs.length} texts`);
            return reply.summaries;
          },
          joinLimits,
          (input) => input.text.length,
        );
  return { embed, summarize };
}

/** The store's Generated message for `input` from its embedding and summary. */
export function toGenerated(input: GenerationInput, embedded: EmbeddedText, summarized: SummarizedText): Generated {
  return {
    $typeName: "contexthub.store.v1.Generated",
    embeddingModel: embedded.model,
    embeddingDimension: embedded.dimension,
    chunks: embedded.document.chunks.map((chunk) => ({
      $typeName: "contexthub.store.v1.ChunkVector",
      ordinal: chunk.ordinal,
      span: { $typeName: "contexthub.common.v1.TextSpan", start: chunk.start, end: chunk.end },
      vector: chunk.vector?.float32Le ?? new Uint8Array(),
    })),
    summary: summarized.summary,
    nodeSummaries: summarized.sections,
    textHash: contentHash(input.text),
  };
}

export type GenerationClient = ReturnType<typeof createGenerationClient>;
