import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { startRecordingHttpServer, type FakeAnswer, type RecordedRequest, type RecordingHttpServer } from "@context-hub/common/testing";
import type { AllInOne } from "@context-hub/cli";
import { callOk, callTool, connectMcpClient, textOf } from "../support/mcp.js";
import { openAiFakeProviders } from "../support/openai-fakes.js";
import { startMemoryHub } from "../support/memory-hub.js";

/**
 * I-4 with real provider adapters: the embedder and summarizer talk to local
 * servers that speak the OpenAI embeddings and chat-completions formats, and
 * the tests make them fail, hang or answer garbage. Each time the write fails
 * with an error naming the leg, and the store holds no new row, chunk or
 * summary; a retry with the same idempotency key then lands exactly once.
 */

type Mode = "ok" | "fail" | "hang" | "garbage";
const dimension = 8;

function embeddingsAnswer(mode: Mode, request: RecordedRequest): FakeAnswer {
  if (mode === "hang") return "hang";
  if (mode === "fail") return { status: 500, json: { error: { message: "the GPU caught fire" } } };
  const inputs = (request.body as { input: string[] }).input;
  if (mode === "garbage") return { json: { data: inputs.map((_, index) => ({ index, embedding: [1, 2, 3] })), model: "fake-embed" } };
  return { json: { data: inputs.map((text, index) => ({ index, embedding: Array.from({ length: dimension }, (_, i) => Math.cos(text.length + i)) })), model: "fake-embed" } };
}

function chatAnswer(mode: Mode): FakeAnswer {
  if (mode === "hang") return "hang";
  if (mode === "fail") return { status: 503, json: { error: { message: "overloaded" } } };
  if (mode === "garbage") return { json: { choices: [] } };
  return { json: { id: "x", choices: [{ index: 0, message: { role: "assistant", content: "<think>hmm</think>The run found early stall and decided to add trip strips." }, finish_reason: "stop" }] } };
}

describe("a failing, hanging or garbage-answering provider stores nothing", () => {
  let embedMode: Mode = "ok";
  let chatMode: Mode = "ok";
  let embeddings: RecordingHttpServer;
  let chat: RecordingHttpServer;
  let hub: AllInOne;
  let client: Client;

  before(async () => {
    embeddings = await startRecordingHttpServer((request) => embeddingsAnswer(embedMode, request));
    chat = await startRecordingHttpServer(() => chatAnswer(chatMode));
    hub = await startMemoryHub({
      ...openAiFakeProviders(embeddings.url, chat.url, dimension),
      EMBEDDER_TIMEOUT_MS: "800",
      EMBEDDER_MAX_RETRIES: "1",
      SUMMARIZER_TIMEOUT_MS: "800",
      SUMMARIZER_MAX_RETRIES: "1",
      GATEWAY_SECTION_SUMMARY_TIMEOUT_MS: "300",
    });
    client = await connectMcpClient(hub.url);
  });

  after(async () => {
    await client?.close();
    await hub?.close();
    await embeddings?.close();
    await chat?.close();
  });

  const stats = () => callOk<{ entries: number; chunks: number }>(client, "get_statistics", {});
  // A distinct text per case: an identical one would fold into the earlier entry without generating anything.
  const textOf_ = (index: number) => `Run ${14 + index} stalled early at 12 degrees; we will add trip strips and rerun.`;
  const write = (index: number) => callTool(client, "store_context", { thread_id: "wind-tunnel", source: "agent", text: textOf_(index), idempotency_key: `key-${index}` });

  const cases: { name: string; embed: Mode; chat: Mode; expected: RegExp }[] = [
    { name: "embedding provider fails", embed: "fail", chat: "ok", expected: /^EMBEDDER_UNAVAILABLE: embedding failed, so nothing was stored: .*openai.*fake-embed.*HTTP 500/s },
    { name: "embedding provider hangs past its deadline", embed: "hang", chat: "ok", expected: /embedding failed, so nothing was stored/ },
    { name: "embedding provider answers vectors of the wrong dimension", embed: "garbage", chat: "ok", expected: /embedding failed, so nothing was stored: .*fake-embed/s },
    { name: "summary provider fails", embed: "ok", chat: "fail", expected: /^SUMMARIZER_UNAVAILABLE: summary failed, so nothing was stored: .*fake-chat.*HTTP 503/s },
    { name: "summary provider answers no choices", embed: "ok", chat: "garbage", expected: /summary failed, so nothing was stored/ },
  ];

  for (const [index, scenario] of cases.entries()) {
    test(`${scenario.name}: the error names the leg and the store is unchanged; the same key then lands once`, async () => {
      const before = await stats();
      embedMode = scenario.embed;
      chatMode = scenario.chat;
      const failed = await write(index);
      assert.equal(failed.isError, true);
      assert.match(textOf(failed), scenario.expected);
      assert.deepEqual(await stats(), before, "no new row, chunk or summary");

      embedMode = "ok";
      chatMode = "ok";
      const landed = await callOk<{ context_id: string }>(client, "store_context", {
        thread_id: "wind-tunnel",
        source: "agent",
        text: textOf_(index),
        idempotency_key: `key-${index}`,
      });
      const replayed = await callOk<{ context_id: string }>(client, "store_context", {
        thread_id: "wind-tunnel",
        source: "agent",
        text: textOf_(index),
        idempotency_key: `key-${index}`,
      });
      assert.equal(replayed.context_id, landed.context_id, "a replay returns the first result");
      const afterwards = await stats();
      assert.equal(afterwards.entries, before.entries + 1, "exactly one new entry");
      const fetched = await callOk<{ entries: { summary: string; embedding_model: string; chunk_count: number }[] }>(client, "get_context_by_ids", { context_ids: [landed.context_id] });
      assert.equal(fetched.entries[0]?.embedding_model, "fake-embed");
      assert.ok((fetched.entries[0]?.chunk_count ?? 0) >= 1);
      assert.equal(fetched.entries[0]?.summary, "The run found early stall and decided to add trip strips.", "think block stripped");
    });
  }
});
