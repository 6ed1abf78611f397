/** What a provider says about the vector space it produces. */
export interface EmbeddingModel {
  /** Provider name, e.g. "builtin". */
  provider: string;
  /** Model id recorded with every vector; vectors of different models never mix. */
  model: string;
  dimension: number;
}

/**
 * What the texts of one call are: passages to store ("document") or search
 * queries ("query"). Providers whose models embed the two differently
 * (Voyage's `input_type`) pass it on; the others ignore it.
 */
export type EmbeddingInputType = "document" | "query";

/**
 * A source of text embeddings. The built-in provider runs in-process; HTTP
 * providers (OpenAI-compatible, Ollama, TEI, Voyage) implement the same
 * contract.
 */
export interface EmbeddingProvider {
  describe(): EmbeddingModel;
  /**
   * One unit-length vector of `describe().dimension` per text, in order, for
   * the whole batch at once (HTTP providers split it into requests of their
   * batch size). Rejects with a ContextHubError (PROVIDER_ERROR
   * when the model fails, DEADLINE_EXCEEDED when `signal` aborts).
   */
  embed(request: { texts: string[]; inputType: EmbeddingInputType }, signal?: AbortSignal): Promise<Float32Array[]>;
  /** Loads models or checks connectivity ahead of the first call; resolves when the provider can serve. */
  warm(): Promise<void>;
  /** Whether calls are answered without a cold start (drives /readyz). */
  isReady(): boolean;
  close(): Promise<void>;
}
