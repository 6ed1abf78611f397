import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  startRecordingHttpServer,
  type FakeAnswer,
  type RecordedRequest,
  type RecordingHttpServer,
} from "@context-hub/common/testing";
import type { AllInOne } from "@context-hub/cli";
import { callOk, callTool, connectMcpClient, textOf } from "../support/mcp.js";
import { openAiFakeProviders } from "../support/openai-fakes.js";
import { startMemoryHub } from "../support/memory-hub.js";

/**
 * Writes that reach the gateway together share their embedder and summarizer
 * calls (and so their provider requests). Through the real stack, with local
 * servers speaking the OpenAI embeddings and chat-completions formats: every
 * entry of a burst gets its own vector and its own summary, and a text the
 * summary provider refuses fails its own write only.
 */

const dimension = 16;
const itemOf = (text: string) => Number(/item-(\d+)/.exec(text)?.[1] ?? "-1");
/** A unit vector on the axis of the text's item number: each item's chunk and query point the same way, and no other does. */
const axisOf = (text: string) =>
  Array.from({ length: dimension }, (_, axis) => (axis === itemOf(text) % dimension ? 1 : 0));

function embeddingsAnswer(request: RecordedRequest): FakeAnswer {
  const inputs = (request.body as { input: string[] }).input;
  return { json: { data: inputs.map((text, index) => ({ index, embedding: axisOf(text) })), model: "fake-embed" } };
}

function chatAnswer(request: RecordedRequest, refused: number): FakeAnswer {
  const prompt = JSON.stringify((request.body as { messages: unknown }).messages);
  const item = itemOf(prompt);
  if (item === refused) return { status: 400, json: { error: { message: "this text breaks the content policy" } } };
  return {
    json: {
      id: "x",
      choices: [
        { index: 0, message: { role: "assistant", content: `Summary of item-${item}.` }, finish_reason: "stop" },
      ],
    },
  };
}

describe("writes arriving together share their generation calls", () => {
  const burst = 12;
  const refused = 5;
  let embeddings: RecordingHttpServer;
  let chat: RecordingHttpServer;
  let hub: AllInOne;
  let client: Client;

  before(async () => {
    embeddings = await startRecordingHttpServer(embeddingsAnswer);
    chat = await startRecordingHttpServer((request) => chatAnswer(request, refused));
    hub = await startMemoryHub({
      ...openAiFakeProviders(embeddings.url, chat.url, dimension),
      SUMMARIZER_MAX_RETRIES: "0",
    });
    client = await connectMcpClient(hub.url);
  });

  after(async () => {
    await client?.close();
    await hub?.close();
    await embeddings?.close();
    await chat?.close();
  });

  test("each entry of a burst gets its own vector and summary; a refused text fails only its own write", async () => {
    // Requests sent at once usually reach the gateway in one turn of its event loop, but nothing guarantees it;
    // bursts are sent until one of them was joined (an embeddings request carrying texts of several writes).
    const joined = () => embeddings.requests.some((request) => (request.body as { input: string[] }).input.length > 1);
    for (let round = 0; round < 5 && !joined(); round++) {
      const thread = `burst-${round}`;
      const texts = Array.from(
        { length: burst },
        (_, item) => `Round ${round}: the wind tunnel run item-${item} stalled at ${10 + item} degrees.`,
      );
      const outcomes = await Promise.all(
        texts.map((text) => callTool(client, "store_context", { thread_id: thread, source: "agent", text })),
      );

      for (const [item, outcome] of outcomes.entries()) {
        if (item === refused) {
          assert.equal(outcome.isError, true, "the refused text's write fails");
          // The caller learns the provider's status and a fixed cause; what the provider said stays in the worker's log.
          assert.match(
            textOf(outcome),
            /^SUMMARIZER_UNAVAILABLE: summary failed, so nothing was stored: .*HTTP 400 \(request refused\)/s,
          );
          assert.doesNotMatch(textOf(outcome), /content policy/);
          continue;
        }
        assert.notEqual(
          outcome.isError,
          true,
          `item ${item} is stored whatever its neighbours did: ${textOf(outcome)}`,
        );
        const { context_id } = outcome.structuredContent as { context_id: string };
        const [entry] = (
          await callOk<{ entries: { summary: string }[] }>(client, "get_context_by_ids", { context_ids: [context_id] })
        ).entries;
        assert.equal(entry?.summary, `Summary of item-${item}.`, "its own summary");
        const found = await callOk<{ results: { id: string; score: number }[] }>(client, "semantic_search_context", {
          query: `item-${item}`,
          thread_id: thread,
          limit: 1,
        });
        assert.equal(found.results[0]?.id, context_id, `item ${item}'s own vector is the one nearest its query`);
        assert.ok(Math.abs((found.results[0]?.score ?? 0) - 1) < 1e-6, "and it is exactly its axis");
      }
      const stored = await callOk<{ entries: number }>(client, "get_statistics", { thread_id: thread });
      assert.equal(stored.entries, burst - 1, "every write but the refused one, once each");
    }
    assert.ok(joined(), "some burst's writes shared an embeddings request");
  });
});
