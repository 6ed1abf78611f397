import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { callOk, callTool, failureLine, fetchEntry } from "../support/mcp.js";
import { hubBackends, snapshotStore, type BackendHub } from "../support/hub-backends.js";

/**
 * A write whose text takes longer than a stage's time budget fails with
 * TEXT_BUDGET_EXCEEDED naming the stage, and changes nothing: no row, chunk,
 * vector, summary, version or audit record, on PGlite and on a PostgreSQL
 * server. The budgets under test are set far below what a long text needs;
 * every other budget far above it, so that only the stage under test can stop
 * the write.
 */

const generous = "120000";
const tight = "10";

/** Ordinary prose, about `chars` characters long: every stage needs well over 10 ms for it, none anywhere near two minutes. */
function longReport(chars: number, topic: string): string {
  const sentences = [
    `The ${topic} survey measured the flow at each gauge twice a day.`,
    "We found the upstream readings drifted after heavy rain, so the team recalibrated the sensors.",
    "Results improved once the logger clocks were synchronised with the station master.",
    "Next, someone should compare the winter series with last year's baseline before the review.",
  ];
  const parts: string[] = [];
  let length = 0;
  for (let index = 0; length < chars; index++) {
    const sentence = `${sentences[index % sentences.length]} (reading ${index})`;
    parts.push(sentence);
    length += sentence.length + 1;
  }
  return parts.join(" ");
}

interface Ack {
  context_id: string;
  version: number;
}

/**
 * A report long enough that the write-time screen cannot finish it within
 * the tight budget on any host: about 900,000 characters (a zero-width space
 * after every space, each of which the screen removes before its phrase
 * rules run), which take it 45–60 ms on a 2-core host, 4–6 × the budget.
 * Plain prose of 300,000 characters took it 6–15 ms, too close to 10 ms to
 * fail every time.
 */
function screenHeavyReport(topic: string): string {
  return longReport(780_000, topic).replaceAll(" ", " \u200b");
}

function budgetSuite(stage: "summarize" | "screen", env: Record<string, string>, budgetSetting: string) {
  const report = stage === "screen" ? screenHeavyReport : (topic: string) => longReport(300_000, topic);
  for (const backend of hubBackends) {
    describe(`the ${stage} stage over its budget (${backend.name})`, () => {
      let hub: BackendHub;
      before(async () => {
        hub = await backend.start({
          ...env,
          GATEWAY_SUMMARY_TIMEOUT_MS: generous,
          GATEWAY_EMBED_TIMEOUT_MS: generous,
          GATEWAY_STORE_TIMEOUT_MS: generous,
        });
      });
      after(() => hub.close());

      test(`store_context fails with TEXT_BUDGET_EXCEEDED naming the ${stage} stage, and nothing is stored`, async () => {
        const text = report("river");
        const before = await snapshotStore(hub);
        const failed = await callTool(hub.client, "store_context", {
          thread_id: "gauges",
          source: "agent",
          text,
          idempotency_key: `${stage}-budget`,
        });
        assert.match(
          failureLine(failed),
          new RegExp(
            `^TEXT_BUDGET_EXCEEDED: ${stage}: the text took longer than its ${tight} ms budget, so the work was stopped and nothing was changed$`,
          ),
        );
        assert.match(
          failed.content.map((part) => (part.type === "text" ? part.text : "")).join("\n"),
          new RegExp(
            `Remedy: split the text into smaller entries, or ask an operator to raise the budget \\(${budgetSetting}\\)`,
          ),
        );
        assert.deepEqual(await snapshotStore(hub), before, "no new row, chunk, vector, summary or audit record");
      });

      test(`store_context_batch fails whole, naming the stage, and nothing is stored`, async () => {
        const before = await snapshotStore(hub);
        const failed = await callTool(hub.client, "store_context_batch", {
          atomic: true,
          entries: [
            { thread_id: "gauges", source: "agent", text: "A short note that passes every stage." },
            { thread_id: "gauges", source: "agent", text: report("lake") },
          ],
        });
        assert.match(
          failureLine(failed),
          new RegExp(
            `^TEXT_BUDGET_EXCEEDED: (entries\\[1\\]: )?${stage}: the text took longer than its ${tight} ms budget`,
          ),
        );
        assert.deepEqual(await snapshotStore(hub), before, "no new row, chunk, vector, summary or audit record");
      });

      test(`update_context with such a text fails naming the stage and leaves the entry as it was`, async () => {
        const stored = await callOk<Ack>(hub.client, "store_context", {
          thread_id: "gauges",
          source: "agent",
          text: `Gauge 7 reads ${stage} fine today.`,
        });
        const entryBefore = await fetchEntry(hub.client, stored.context_id);
        const before = await snapshotStore(hub);
        const failed = await callTool(hub.client, "update_context", {
          context_id: stored.context_id,
          text: report("delta"),
        });
        assert.match(
          failureLine(failed),
          new RegExp(
            `^TEXT_BUDGET_EXCEEDED: (updates\\[0\\]: )?${stage}: the text took longer than its ${tight} ms budget`,
          ),
        );
        assert.deepEqual(await snapshotStore(hub), before, "no new version, chunk, summary or audit record");
        assert.deepEqual(await fetchEntry(hub.client, stored.context_id), entryBefore);
      });
    });
  }
}

budgetSuite(
  "summarize",
  { SUMMARIZER_TEXT_BUDGET_MS: tight, EMBEDDER_TEXT_BUDGET_MS: generous, STORE_TEXT_BUDGET_MS: generous },
  "SUMMARIZER_TEXT_BUDGET_MS",
);
budgetSuite(
  "screen",
  { SUMMARIZER_TEXT_BUDGET_MS: generous, EMBEDDER_TEXT_BUDGET_MS: generous, STORE_TEXT_BUDGET_MS: tight },
  "STORE_TEXT_BUDGET_MS",
);
