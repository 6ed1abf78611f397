/**
 * A source of query–passage relevance scores. The built-in provider runs
 * in-process; HTTP providers (Cohere-compatible rerank APIs, Voyage, TEI) implement
 * the same contract.
 */
export interface RerankProvider {
  describe(): { provider: string; model: string };
  /**
   * One finite relevance score per passage, in passage order; higher is more
   * relevant, comparable only within one call. Rejects with a ContextHubError
   * (PROVIDER_ERROR when the model fails, DEADLINE_EXCEEDED when `signal` aborts).
   */
  score(query: string, passages: readonly string[], signal?: AbortSignal): Promise<number[]>;
  /** Loads models or checks connectivity ahead of the first call; resolves when the provider can serve. */
  warm(): Promise<void>;
  /** Whether calls are answered without a cold start (drives /readyz). */
  isReady(): boolean;
  close(): Promise<void>;
}
