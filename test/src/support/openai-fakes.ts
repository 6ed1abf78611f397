/**
 * The settings that point `context-hub start`'s embedder and summarizer at
 * local servers speaking the OpenAI embeddings and chat-completions formats
 * (RecordingHttpServer), with the model names the fakes answer as.
 */
export function openAiFakeProviders(embeddingsUrl: string, chatUrl: string, dimension: number): Record<string, string> {
  return {
    EMBEDDER_PROVIDER: "openai",
    EMBEDDER_BASE_URL: embeddingsUrl,
    EMBEDDER_MODEL: "fake-embed",
    EMBEDDER_DIMENSION: String(dimension),
    SUMMARIZER_PROVIDER: "openai",
    SUMMARIZER_BASE_URL: chatUrl,
    SUMMARIZER_MODEL: "fake-chat",
    SUMMARIZER_MIN_CHARS: "10",
  };
}
