// The summarizer over gRPC with an LLM provider pointed at a local Anthropic-compatible server.
import { test } from "node:test";
import assert from "node:assert/strict";
import { setImmediate as nextTurn } from "node:timers/promises";
import { createGrpcClient, createLogger, isContextHubError } from "@context-hub/common";
import { startRecordingHttpServer, type FakeAnswer, type RecordedRequest } from "@context-hub/common/testing";
import { commonV1, summarizerV1 } from "@context-hub/proto";
import { loadSummarizerConfig } from "./config.js";
import { startSummarizer } from "./index.js";

const logger = createLogger("summarizer-test", "silent");

const messagesAnswer = (text: string): FakeAnswer => ({
  json: { id: "msg_1", type: "message", role: "assistant", content: [{ type: "text", text }], stop_reason: "end_turn" },
});

async function startForTest(
  t: { after(fn: () => Promise<void> | void): void },
  handler: (request: RecordedRequest, index: number) => FakeAnswer | Promise<FakeAnswer>,
  env: NodeJS.ProcessEnv = {},
) {
  const server = await startRecordingHttpServer(handler);
  t.after(() => server.close());
  const config = loadSummarizerConfig({
    SUMMARIZER_PORT: "0",
    SUMMARIZER_OPS_PORT: "0",
    SUMMARIZER_PROVIDER: "anthropic",
    SUMMARIZER_BASE_URL: server.url,
    SUMMARIZER_API_KEY: "sk-ant-e2e-secret",
    SUMMARIZER_MODEL: "claude-haiku-4-5",
    SUMMARIZER_MIN_CHARS: "100",
    SUMMARIZER_SECTION_MIN_CHARS: "100",
    SUMMARIZER_MAX_RETRIES: "1",
    SUMMARIZER_TIMEOUT_MS: "2000",
    ...env,
  });
  const service = await startSummarizer(config, logger);
  t.after(() => service.close());
  const client = createGrpcClient(summarizerV1.SummarizerService, {
    address: `127.0.0.1:${service.port}`,
    peer: "summarizer",
    deadlineMs: 10_000,
    retries: 0,
  });
  t.after(() => client.close());
  return { server, service, client };
}

const report = [
  "# Findings",
  "",
  "I profiled the search path with a large thread. The semantic leg was slow because the filter ran after the vector scan.",
  "",
  "## Fix",
  "",
  "I decided to enable iterative scans. The result is that latency dropped from four seconds to two hundred milliseconds.",
].join("\n");

test("Summarize goes to the Anthropic-compatible server, for the summary and each section, and comes back cleaned", async (t) => {
  const { server, service, client } = await startForTest(t, (request) => {
    const user = (request.body as { messages: { content: string }[] }).messages[0]!.content;
    const section = /^Section: (.+)$/m.exec(user)?.[1];
    return messagesAnswer(
      section === undefined
        ? "<think>plan</think>Summary: The agent enabled iterative scans."
        : `Here is a summary of the section:\n${section} is covered.`,
    );
  });
  assert.equal(
    (await fetch(`http://127.0.0.1:${service.opsPort}/readyz`)).status,
    200,
    "an LLM provider is ready at start",
  );
  const described = await client.describe({});
  assert.deepEqual(
    { provider: described.provider, model: described.model },
    { provider: "anthropic", model: "claude-haiku-4-5" },
  );

  const summaryOf = async (text: string, source: commonV1.Source, sectionBudgetMs = 0) =>
    (await client.summarize({ inputs: [{ text, source }], sectionBudgetMs })).summaries[0]!;
  assert.equal((await summaryOf(report, commonV1.Source.AGENT)).summary, "The agent enabled iterative scans.");
  assert.equal(
    (await summaryOf("Too short.", commonV1.Source.AGENT)).summary,
    "",
    "under SUMMARIZER_MIN_CHARS no request is made",
  );
  assert.equal(server.requests.length, 1);
  const [request] = server.requests;
  assert.equal(request!.path, "/v1/messages");
  assert.equal(request!.headers["x-api-key"], "sk-ant-e2e-secret");
  assert.equal(request!.headers["anthropic-version"], "2023-06-01");
  assert.match((request!.body as { system: string }).system, /what the agent found and what it decided/);

  const { sections } = await summaryOf(report, commonV1.Source.USER, 5_000);
  assert.deepEqual(
    sections.map((section) => [section.nodeId, section.summary]),
    [
      ["findings", "Findings is covered."],
      ["findings/fix", "Findings > Fix is covered."],
    ],
  );
  assert.equal(server.requests.length, 4, "one request for the summary and one per section");
});

test("a failing provider surfaces over gRPC as PROVIDER_ERROR naming provider, model and cause", async (t) => {
  const { server, client } = await startForTest(t, () => ({
    status: 401,
    json: { type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } },
  }));
  await assert.rejects(
    client.summarize({ inputs: [{ text: report, source: commonV1.Source.USER }] }),
    (error: unknown) => {
      assert.ok(isContextHubError(error));
      assert.equal(error.code, "PROVIDER_ERROR");
      assert.equal(
        error.message,
        "anthropic messages (model claude-haiku-4-5) failed: HTTP 401 (authentication failed) after 1 attempt",
      );
      assert.equal(error.remedy, "check SUMMARIZER_API_KEY");
      assert.doesNotMatch(error.message, /sk-ant-e2e-secret/);
      return true;
    },
  );
  assert.equal(server.requests.length, 1);
});

/** The heading path of a section request, or undefined for a summary request. */
const sectionOf = (request: RecordedRequest) =>
  /^Section: (.+)$/m.exec((request.body as { messages: { content: string }[] }).messages[0]!.content)?.[1];

test("however many texts one call carries, the worker never has more than SUMMARIZER_CONCURRENCY provider requests in flight", async (t) => {
  let inFlight = 0;
  let peak = 0;
  const { server, client } = await startForTest(
    t,
    async (request) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      // A slow provider, so that requests pile up if nothing holds them back: each answer waits a hundred turns of
      // the event loop, in which any request the worker let through would arrive.
      for (let turn = 0; turn < 100; turn++) await nextTurn();
      inFlight--;
      const section = sectionOf(request);
      return messagesAnswer(section === undefined ? "The agent enabled iterative scans." : `${section} is covered.`);
    },
    { SUMMARIZER_CONCURRENCY: "3" },
  );
  const inputs = Array.from({ length: 12 }, () => ({ text: report, source: commonV1.Source.AGENT }));
  const [first, second] = await Promise.all([
    client.summarize({ inputs, sectionBudgetMs: 20_000 }),
    client.summarize({ inputs: inputs.slice(0, 4), sectionBudgetMs: 20_000 }),
  ]);
  for (const { summary, sections } of [...first.summaries, ...second.summaries]) {
    assert.equal(summary, "The agent enabled iterative scans.");
    assert.equal(sections.length, 2, "every node summary made it within the budget");
  }
  assert.equal(server.requests.length, 16 * 3, "one summary and two sections per text");
  assert.equal(peak, 3, "the limit is reached and never passed, across both calls");
});

test("waiting summaries go to the provider before waiting node summaries", async (t) => {
  const { server, client } = await startForTest(
    t,
    (request) => messagesAnswer(sectionOf(request) === undefined ? "A summary." : "A section."),
    { SUMMARIZER_CONCURRENCY: "1" },
  );
  const inputs = Array.from({ length: 3 }, () => ({ text: report, source: commonV1.Source.USER }));
  await client.summarize({ inputs, sectionBudgetMs: 20_000 });
  assert.deepEqual(
    server.requests.map((request) => (sectionOf(request) === undefined ? "summary" : "section")),
    ["summary", "summary", "summary", "section", "section", "section", "section", "section", "section"],
  );
});

test("a node summary that hangs holds its place only until its budget, so the next call's summary is not held up beyond it", async (t) => {
  let sectionArrived!: () => void;
  const sectionInFlight = new Promise<void>((resolve) => (sectionArrived = resolve));
  const { client } = await startForTest(
    t,
    (request) => {
      if (sectionOf(request) === undefined) return messagesAnswer("A summary.");
      sectionArrived();
      return "hang";
    },
    { SUMMARIZER_CONCURRENCY: "1", SUMMARIZER_TIMEOUT_MS: "20000" },
  );
  const started = performance.now();
  const withSections = client.summarize({
    inputs: [{ text: report, source: commonV1.Source.AGENT }],
    sectionBudgetMs: 300,
  });
  await sectionInFlight;
  const next = await client.summarize({ inputs: [{ text: report, source: commonV1.Source.USER }], sectionBudgetMs: 0 });
  const waited = performance.now() - started;
  assert.equal(next.summaries[0]!.summary, "A summary.");
  assert.ok(
    // Not a speed bound: the hanging request would hold the only place until the 20 s provider timeout; the bound
    // below is the 300 ms budget, which a real timer cannot beat.
    waited >= 290 && waited < 20_000,
    `the next summary came after ${Math.round(waited)} ms, not after the 20 s provider timeout`,
  );
  const first = await withSections;
  assert.deepEqual(
    first.summaries.map((summary) => [summary.summary, summary.sections.length]),
    [["A summary.", 0]],
  );
});

test("a call that failed gives up its texts' places: requests still waiting are not sent", async (t) => {
  const textOf = (request: RecordedRequest) =>
    (request.body as { messages: { content: string }[] }).messages[0]!.content;
  const { server, client } = await startForTest(
    t,
    // The first text's summary is refused, a later call's is answered; any other text's hangs (until the provider
    // timeout, 20 s here).
    (request) =>
      textOf(request).includes("refused text")
        ? { status: 400, json: { type: "error", error: { type: "invalid_request_error", message: "refused" } } }
        : textOf(request).includes("later text")
          ? messagesAnswer("A summary.")
          : "hang",
    { SUMMARIZER_CONCURRENCY: "1", SUMMARIZER_TIMEOUT_MS: "20000" },
  );
  const padded = (words: string) => `${words} `.repeat(20);
  await assert.rejects(
    client.summarize({
      inputs: [
        { text: padded("refused text"), source: commonV1.Source.AGENT },
        { text: padded("waiting text"), source: commonV1.Source.AGENT },
      ],
      sectionBudgetMs: 0,
    }),
    (error: unknown) => isContextHubError(error) && error.code === "PROVIDER_ERROR",
  );
  // Had the failed call's second text still been queued, it would go first and this call would wait behind its
  // hanging request; once this call is answered, every request that will be sent before it has been.
  const later = await client.summarize({
    inputs: [{ text: padded("later text"), source: commonV1.Source.AGENT }],
    sectionBudgetMs: 0,
  });
  assert.equal(later.summaries[0]!.summary, "A summary.");
  assert.deepEqual(
    server.requests.map((request) =>
      textOf(request).includes("refused text") ? "refused" : textOf(request).includes("later text") ? "later" : "other",
    ),
    ["refused", "later"],
    "the failed call's waiting text was never sent",
  );
});
