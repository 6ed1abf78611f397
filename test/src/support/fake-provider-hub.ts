import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { startRecordingHttpServer, type FakeAnswer, type RecordedRequest, type RecordingHttpServer } from "@context-hub/common";
import type { AllInOne } from "@context-hub/cli";
import { connectMcpClient } from "./mcp.js";
import { startMemoryHub } from "./memory-hub.js";
import { openAiFakeProviders } from "./openai-fakes.js";

type Handler = (request: RecordedRequest, index: number) => FakeAnswer | Promise<FakeAnswer>;

/** An in-memory hub whose embedder and summarizer talk to local OpenAI-format servers, with an MCP client. */
export interface FakeProviderHub {
  hub: AllInOne;
  client: Client;
  /** The OpenAI embeddings endpoint the embedder calls. */
  embeddings: RecordingHttpServer;
  /** The OpenAI chat-completions endpoint the summarizer calls. */
  chat: RecordingHttpServer;
  close(): Promise<void>;
}

/**
 * Starts the two provider servers answering with `embeddings` and `chat`,
 * then the hub pointed at them (`dimension`-sized vectors, `env` on top),
 * then a client. `close` stops them in the reverse order.
 */
export async function startFakeProviderHub(handlers: { embeddings: Handler; chat: Handler }, dimension: number, env: Record<string, string> = {}): Promise<FakeProviderHub> {
  const embeddings = await startRecordingHttpServer(handlers.embeddings);
  const chat = await startRecordingHttpServer(handlers.chat);
  const hub = await startMemoryHub({ ...openAiFakeProviders(embeddings.url, chat.url, dimension), ...env });
  const client = await connectMcpClient(hub.url);
  return {
    hub,
    client,
    embeddings,
    chat,
    async close() {
      await client.close();
      await hub.close();
      await embeddings.close();
      await chat.close();
    },
  };
}
