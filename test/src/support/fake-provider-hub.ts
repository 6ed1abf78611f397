import { after, before } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  startRecordingHttpServer,
  type FakeAnswer,
  type RecordedRequest,
  type RecordingHttpServer,
} from "@context-hub/common/testing";
import type { AllInOne } from "@context-hub/cli";
import { memoryBackend, type BackendHub, type HubBackend } from "./hub-backends.js";
import { openAiFakeProviders, startFakeOpenAi, type FakeOpenAi } from "./openai-fakes.js";

/** The fake providers and the hub using them, set once the suite's `before` hook has run. */
export interface FakeProviderHub {
  fakes: FakeOpenAi;
  hub: BackendHub;
}

/**
 * Registers the current suite's before and after hooks: the OpenAI-format
 * fake providers (see startFakeOpenAi), and a hub on `backend` pointed at
 * them with `env` on top. Read the fields inside tests, not before.
 */
export function useFakeProviderHub(
  backend: HubBackend,
  env: Record<string, string>,
  fakeOptions: { dimension?: number; slowMs?: number } = {},
): FakeProviderHub {
  const context = {} as FakeProviderHub;
  before(async () => {
    context.fakes = await startFakeOpenAi({
      dimension: fakeOptions.dimension ?? 8,
      ...(fakeOptions.slowMs === undefined ? {} : { slowMs: fakeOptions.slowMs }),
    });
    context.hub = await backend.start({ ...context.fakes.env, ...env });
  });
  after(async () => {
    await context.hub?.close();
    await context.fakes?.close();
  });
  return context;
}

type Handler = (request: RecordedRequest, index: number) => FakeAnswer | Promise<FakeAnswer>;

/** An in-memory hub whose embedder and summarizer talk to local OpenAI-format servers, with an MCP client. */
export interface CustomFakeProviderHub {
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
export async function startCustomFakeProviderHub(
  handlers: { embeddings: Handler; chat: Handler },
  dimension: number,
  env: Record<string, string> = {},
): Promise<CustomFakeProviderHub> {
  const embeddings = await startRecordingHttpServer(handlers.embeddings);
  const chat = await startRecordingHttpServer(handlers.chat);
  const { hub, client, close } = await memoryBackend.start({
    ...openAiFakeProviders(embeddings.url, chat.url, dimension),
    ...env,
  });
  return {
    hub,
    client,
    embeddings,
    chat,
    async close() {
      await close();
      await embeddings.close();
      await chat.close();
    },
  };
}
