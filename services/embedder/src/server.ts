// The embedder's gRPC transport: translates EmbedderService messages to and from the domain.
import { vectorToBytes, type ServiceImplementation } from "@context-hub/common";
import type { embedderV1 } from "@context-hub/proto";
import type { Embedder } from "./embedder.js";

/** The EmbedderService handlers over an embedder. */
export function createEmbedderHandlers(embedder: Embedder): ServiceImplementation<typeof embedderV1.EmbedderService> {
  return {
    async describe() {
      const description = embedder.describe();
      return {
        provider: description.provider,
        model: description.model,
        dimension: description.dimension,
        chunkSize: description.chunkSize,
        chunkOverlap: description.chunkOverlap,
      };
    },
    async embedDocuments(request, context) {
      const documents = await embedder.embedDocuments(request.texts, context.signal);
      // Read after embedding: a provider that learns its dimension on first use knows it only now.
      const { model, dimension } = embedder.describe();
      return {
        model,
        dimension,
        documents: documents.map((chunks) => ({
          chunks: chunks.map((chunk) => ({
            ordinal: chunk.ordinal,
            start: chunk.start,
            end: chunk.end,
            vector: { float32Le: vectorToBytes(chunk.vector) },
          })),
        })),
      };
    },
    async embedQueries(request, context) {
      const vectors = await embedder.embedQueries(request.texts, context.signal);
      const { model, dimension } = embedder.describe();
      return { model, dimension, vectors: vectors.map((vector) => ({ float32Le: vectorToBytes(vector) })) };
    },
  };
}
