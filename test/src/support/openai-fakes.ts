import { setTimeout as delay } from "node:timers/promises";
import {
  startRecordingHttpServer,
  type FakeAnswer,
  type RecordedRequest,
  type RecordingHttpServer,
} from "@context-hub/common/testing";
import { buildSectionPrompt, buildSummaryPrompt, type TextSource } from "@context-hub/summarizer";

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

/**
 * How a fake answers: properly, with an error status, never, with a body of
 * the right shape but wrong content, or properly after `slowMs`.
 */
export type FakeMode = "ok" | "fail" | "hang" | "garbage" | "slow";

/** What each fake answers now: embeddings, whole-text summaries and section (node) summaries apart. */
export interface FakeModes {
  embed: FakeMode;
  summary: FakeMode;
  sections: FakeMode;
}

/**
 * Words with an axis of their own in the fake embedding space: a chunk
 * holding some of them points along their axes, any other chunk along the
 * last axis. A query for one word then finds exactly the chunks holding it.
 */
export const fakeTopics = ["tunnel", "kiln", "reef", "orbit", "glacier", "harbour", "meadow"] as const;

/** The vector the fake embeddings server answers for `text` (not unit length: the embedder normalises it). */
export function fakeEmbedding(text: string, dimension: number): number[] {
  const lower = text.toLowerCase();
  const vector = Array.from({ length: dimension }, (_, axis) =>
    axis < fakeTopics.length && lower.includes(fakeTopics[axis]!) ? 1 : 0,
  );
  if (!vector.includes(1)) vector[dimension - 1] = 1;
  return vector;
}

/** The summary stored for `text` when the fake chat server summarises it (its answer, less the reasoning block). */
export const fakeSummaryOf = (text: string): string => `Digest of ${JSON.stringify(text.split("\n")[0] ?? "")}.`;

/** The node summary stored for a section at `path` (its headings, outermost first). */
export const fakeSectionSummaryOf = (path: readonly string[]): string => `Section note for ${path.join(" > ")}.`;

const sources: TextSource[] = ["user", "agent", "unspecified"];
const sectionSystemPrompts = new Set(
  sources.map((source) => buildSectionPrompt({ heading: "", path: [], text: "" }, source, 1000).system),
);
const summarySystemPrompts = new Set(sources.map((source) => buildSummaryPrompt("", source, 1000).system));

interface ChatMessage {
  role: string;
  content: string;
}

/** The texts an embeddings request asks vectors for. */
export const embeddingInputs = (request: RecordedRequest): string[] => (request.body as { input: string[] }).input;

/** What a chat-completions request asks for: a whole text's summary or one section's, with the text it carries. */
export function chatPromptOf(request: RecordedRequest): {
  kind: "summary" | "section" | "other";
  text: string;
  path: string[];
} {
  const messages = (request.body as { messages?: ChatMessage[] }).messages ?? [];
  const system = messages.find((message) => message.role === "system")?.content ?? "";
  const user = messages.find((message) => message.role === "user")?.content ?? "";
  const text = /<text>\n([\s\S]*)\n<\/text>$/.exec(user)?.[1] ?? "";
  const path = /^Section: (.*)\n/.exec(user)?.[1]?.split(" > ") ?? [];
  const kind = sectionSystemPrompts.has(system) ? "section" : summarySystemPrompts.has(system) ? "summary" : "other";
  return { kind, text, path };
}

const chatReply = (content: string): FakeAnswer => ({
  json: { id: "fake", choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }] },
});

/** Local OpenAI-format embeddings and chat servers whose answers a test switches between modes. */
export interface FakeOpenAi {
  embeddings: RecordingHttpServer;
  chat: RecordingHttpServer;
  /** Switched by the test; each request is answered by the mode current when it arrived. */
  modes: FakeModes;
  /** The settings for `context-hub start` that point its embedder and summarizer here. */
  env: Record<string, string>;
  /** Every mode back to "ok". */
  reset(): void;
  /** Resolves once every slow answer begun so far is due (its delay has passed and the server is sending it). */
  slowAnswersSent(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts the fake embeddings and chat servers. Answers in "ok" mode are
 * `fakeEmbedding`, `fakeSummaryOf` (wrapped in a reasoning block the
 * summarizer must strip) and `fakeSectionSummaryOf`; a chat prompt that is
 * neither kind is refused, so a changed prompt cannot pass unnoticed.
 */
export async function startFakeOpenAi(options: { dimension: number; slowMs?: number }): Promise<FakeOpenAi> {
  const { dimension } = options;
  const slowMs = options.slowMs ?? 3_000;
  const modes: FakeModes = { embed: "ok", summary: "ok", sections: "ok" };
  const slow = new Set<Promise<unknown>>();

  const answer = async (
    mode: FakeMode,
    ok: () => FakeAnswer,
    garbage: FakeAnswer,
    failure: FakeAnswer,
  ): Promise<FakeAnswer> => {
    switch (mode) {
      case "ok":
        return ok();
      case "fail":
        return failure;
      case "hang":
        return "hang";
      case "garbage":
        return garbage;
      case "slow": {
        const late = delay(slowMs).then(ok);
        slow.add(late);
        return late;
      }
    }
  };

  const embeddings = await startRecordingHttpServer((request) => {
    const inputs = embeddingInputs(request);
    return answer(
      modes.embed,
      () => ({
        json: {
          data: inputs.map((text, index) => ({ index, embedding: fakeEmbedding(text, dimension) })),
          model: "fake-embed",
        },
      }),
      { json: { data: inputs.map((_, index) => ({ index, embedding: [1, 2, 3] })), model: "fake-embed" } },
      { status: 500, json: { error: { message: "the GPU caught fire" } } },
    );
  });
  const chat = await startRecordingHttpServer((request) => {
    const prompt = chatPromptOf(request);
    if (prompt.kind === "other")
      return { status: 400, json: { error: { message: "the fake does not know this prompt" } } };
    const ok = () =>
      chatReply(
        prompt.kind === "summary"
          ? `<think>weighing it</think>${fakeSummaryOf(prompt.text)}`
          : fakeSectionSummaryOf(prompt.path),
      );
    return answer(
      prompt.kind === "summary" ? modes.summary : modes.sections,
      ok,
      { json: { choices: [] } },
      { status: 503, json: { error: { message: "overloaded" } } },
    );
  });

  return {
    embeddings,
    chat,
    modes,
    env: openAiFakeProviders(embeddings.url, chat.url, dimension),
    reset() {
      Object.assign(modes, { embed: "ok", summary: "ok", sections: "ok" } satisfies FakeModes);
    },
    async slowAnswersSent() {
      await Promise.all(slow);
    },
    async close() {
      await Promise.all([embeddings.close(), chat.close()]);
    },
  };
}
