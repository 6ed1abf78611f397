// The reranker's gRPC transport: translates RerankerService messages to and from the domain.
import type { ServiceImplementation } from "@context-hub/common";
import type { rerankerV1 } from "@context-hub/proto";
import type { Reranker } from "./reranker.js";

/** The RerankerService handlers over a reranker. */
export function createRerankerHandlers(reranker: Reranker): ServiceImplementation<typeof rerankerV1.RerankerService> {
  return {
    async describe() {
      return reranker.describe();
    },
    async rerank(request, context) {
      const results = await reranker.rerank(request.query, request.passages, request.topN, context.signal);
      return { results };
    },
  };
}
