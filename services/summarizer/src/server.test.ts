import { test } from "node:test";
import assert from "node:assert/strict";
import { createGrpcClient, createLogger, isContextHubError } from "@context-hub/common";
import { commonV1, summarizerV1 } from "@context-hub/proto";
import { loadSummarizerConfig } from "./config.js";
import { startSummarizer } from "./index.js";

const logger = createLogger("summarizer-test", "silent");

async function startForTest(t: { after(fn: () => Promise<void> | void): void }) {
  const config = loadSummarizerConfig({ SUMMARIZER_PORT: "0", SUMMARIZER_OPS_PORT: "0", SUMMARIZER_MIN_CHARS: "300", SUMMARIZER_SECTION_MIN_CHARS: "200", SUMMARIZER_MAX_TEXT_CHARS: "20000" });
  const service = await startSummarizer(config, logger);
  t.after(() => service.close());
  const client = createGrpcClient(summarizerV1.SummarizerService, { address: `127.0.0.1:${service.port}`, peer: "summarizer", deadlineMs: 5000 });
  t.after(() => client.close());
  return { service, client };
}

const report = [
  "# Findings",
  "",
  "I profiled the search path with a large thread. The semantic leg was slow because the filter ran after the vector scan. I found that iterative scans were disabled in the configuration.",
  "",
  "## Fix",
  "",
  "I decided to enable iterative scans. The result is that latency dropped from four seconds to two hundred milliseconds. The access predicate still runs inside every query, because moving it would break the invariant.",
].join("\n");

test("Describe reports the built-in extractive model and the threshold", async (t) => {
  const { client, service } = await startForTest(t);
  const reply = await client.describe({});
  assert.deepEqual({ provider: reply.provider, model: reply.model, minChars: reply.minChars }, { provider: "builtin", model: "builtin-extractive-v1", minChars: 300 });
  assert.equal((await fetch(`http://127.0.0.1:${service.opsPort}/readyz`)).status, 200);
});

test("Summarize returns a plain summary, and an empty one for short texts", async (t) => {
  const { client } = await startForTest(t);
  const { summary } = await client.summarize({ text: report, source: commonV1.Source.AGENT });
  assert.match(summary, /found that iterative scans were disabled|latency dropped/);
  assert.doesNotMatch(summary, /#/);
  assert.ok(summary.length < report.length);
  assert.equal((await client.summarize({ text: "Short note.", source: commonV1.Source.USER })).summary, "");
});

test("SummarizeSections returns node summaries with stable ids and spans", async (t) => {
  const { client } = await startForTest(t);
  const { sections } = await client.summarizeSections({ text: report, source: commonV1.Source.AGENT });
  assert.deepEqual(
    sections.map((s) => [s.nodeId, s.heading, s.level]),
    [
      ["findings", "Findings", 1],
      ["findings/fix", "Fix", 2],
    ],
  );
  const fix = sections[1]!;
  assert.equal(fix.span!.start, report.indexOf("## Fix"));
  assert.equal(fix.span!.end, report.length);
  assert.ok(fix.summary.length > 0 && !fix.summary.includes("#"));
});

test("an unknown source or a text over the limit is INVALID_ARGUMENT", async (t) => {
  const { client } = await startForTest(t);
  for (const call of [() => client.summarize({ text: report, source: 99 as commonV1.Source }), () => client.summarizeSections({ text: "x".repeat(20_001), source: commonV1.Source.USER })]) {
    await assert.rejects(call(), (error: unknown) => isContextHubError(error) && error.code === "INVALID_ARGUMENT");
  }
});
