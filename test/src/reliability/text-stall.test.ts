import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { AllInOne } from "@context-hub/cli";
import { callOk, callTool, connectMcpClient, failureLine } from "../support/mcp.js";
import { startMemoryHub } from "../support/memory-hub.js";

/**
 * No caller can slow down another (I-6): while one caller's long text is
 * summarised, outlined, chunked, embedded and screened, another caller's
 * reads keep being answered. The hub runs every service in this one process
 * (the store included), as `context-hub start` runs all but the store, so any
 * text work left on the thread that serves calls would hold every read up for
 * as long as it ran.
 *
 * The writer's text is ordinary prose at the 1,000,000-character limit, which
 * keeps the generation workers busy for a second or more on this machine; the
 * store's screen budget is set tight, so the write is refused at the last
 * stage and nothing is committed (a commit of a text that long is database
 * work, which is not under test here). Figures are compared as ratios only.
 */

let hub: AllInOne;
let writer: Client;
let reader: Client;

before(async () => {
  hub = await startMemoryHub({
    SUMMARIZER_TEXT_BUDGET_MS: "120000",
    EMBEDDER_TEXT_BUDGET_MS: "120000",
    STORE_TEXT_BUDGET_MS: "10",
    GATEWAY_SUMMARY_TIMEOUT_MS: "120000",
    GATEWAY_EMBED_TIMEOUT_MS: "120000",
    GATEWAY_SECTION_SUMMARY_TIMEOUT_MS: "60000",
  });
  writer = await connectMcpClient(hub.url);
  reader = await connectMcpClient(hub.url);
});

after(async () => {
  await writer?.close();
  await reader?.close();
  await hub?.close();
});

function prose(chars: number): string {
  const sentences = [
    "The survey measured the flow at each gauge twice a day.",
    "We found the upstream readings drifted after heavy rain, so the team recalibrated the sensors.",
    "Results improved once the logger clocks were synchronised with the station master.",
    "Next, someone should compare the winter series with last year's baseline before the review.",
  ];
  const parts: string[] = [];
  for (let index = 0, length = 0; length < chars; index++) {
    const part = index % 40 === 0 ? `\n\n## Gauge ${index / 40}\n\n` : `${sentences[index % sentences.length]} `;
    parts.push(part);
    length += part.length;
  }
  return parts.join("").slice(0, chars);
}

const quantile = (samples: number[], q: number) =>
  [...samples].sort((a, b) => a - b)[Math.min(samples.length - 1, Math.floor(q * samples.length))]!;

test("while a 1M-character text is being processed, another caller's reads are answered throughout", async (t) => {
  const stored = await callOk<{ context_id: string }>(reader, "store_context", {
    thread_id: "gauges",
    source: "agent",
    text: "Gauge 4 drifted 2 mm after the storm; we reset it.",
  });
  const read = async () => {
    const started = performance.now();
    await callOk(reader, "get_context_by_ids", { context_ids: [stored.context_id] });
    return performance.now() - started;
  };
  const idle: number[] = [];
  for (let index = 0; index < 40; index++) idle.push(await read());

  const text = prose(1_000_000);
  const during: number[] = [];
  let writing = true;
  const started = performance.now();
  const write = callTool(writer, "store_context", { thread_id: "stall", source: "agent", text }).finally(
    () => (writing = false),
  );
  const reading = (async () => {
    while (writing) during.push(await read());
  })();
  const result = await write;
  const writeMs = performance.now() - started;
  await reading;

  const duringP95 = quantile(during, 0.95);
  const summary = `write ${Math.round(writeMs)} ms; ${during.length} reads during it, p95 ${duringP95.toFixed(1)} ms (idle p95 ${quantile(idle, 0.95).toFixed(1)} ms)`;
  t.diagnostic(summary);
  // Text work on the serving thread would hold reads for most of the write (a second or more of summarising alone).
  // How long reads wait is measured by bench/text-stall.js (reader p95 during a write against idle), not asserted here.
  assert.ok(during.length >= 5, `reads kept being answered during the write: ${summary}`);
  assert.match(
    failureLine(result),
    /^TEXT_BUDGET_EXCEEDED: screen: /,
    "the write went through every generation stage and was refused at the store's screen",
  );
});
