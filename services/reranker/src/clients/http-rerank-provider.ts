import { mapWithConcurrency, splitIntoBatches, type HttpProviderClient } from "@context-hub/common";
import type { RerankProvider } from "../rerank-provider.js";

/** One rerank API: scores a batch of passages against a query, in passage order. */
export interface RerankApi {
  /** The client the API sends through; its errors name provider and model. */
  client: HttpProviderClient;
  /** One score per text, in text order (the adapter has ordered them by index). */
  scoreBatch(query: string, texts: string[], signal: AbortSignal | undefined): Promise<number[]>;
}

export interface HttpRerankProviderOptions {
  provider: string;
  model: string;
  api: RerankApi;
  batchSize: number;
  concurrency: number;
}

/**
 * Puts `{index, score}` results back in passage order, checking there is
 * exactly one per passage. APIs answer best first; the domain sorts again.
 */
export function scoresByIndex(
  results: readonly { index: number; score: number }[],
  expected: number,
  client: HttpProviderClient,
): number[] {
  if (results.length !== expected) throw client.malformed(`${results.length} scores for ${expected} passages`);
  const scores = new Array<number | undefined>(expected);
  for (const result of results) {
    if (result.index >= expected)
      throw client.malformed(`result index ${result.index} is out of range for ${expected} passages`);
    if (scores[result.index] !== undefined) throw client.malformed(`result index ${result.index} appears twice`);
    scores[result.index] = result.score;
  }
  return scores as number[];
}

/**
 * A RerankProvider over an HTTP rerank API: passages split into batches of
 * `batchSize` (scores of cross-encoders do not depend on the other passages,
 * so batches compare), at most `concurrency` requests at once. Ready at start.
 */
export function createHttpRerankProvider(options: HttpRerankProviderOptions): RerankProvider {
  const { provider, model, api, batchSize, concurrency } = options;
  return {
    describe: () => ({ provider, model }),
    async score(query, passages, signal) {
      const batches = splitIntoBatches(passages, batchSize);
      const answers = await mapWithConcurrency(
        batches,
        concurrency,
        (batch, _index, batchSignal) => api.scoreBatch(query, batch, batchSignal),
        signal,
      );
      const scores = answers.flat();
      if (scores.length !== passages.length)
        throw api.client.malformed(`${scores.length} scores for ${passages.length} passages`);
      return scores;
    },
    // Nothing to load: the first call is the first request.
    warm: async () => {},
    isReady: () => true,
    close: async () => {},
  };
}
