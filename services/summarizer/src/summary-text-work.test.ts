import { after, test } from "node:test";
import assert from "node:assert/strict";
import { isContextHubError } from "@context-hub/common";
import { parseOutline } from "@context-hub/text";
import { builtinSummaryLength, createBuiltinSummaryProvider } from "./builtin-summary-provider.js";
import { summarizeExtractive } from "./extractive-summary.js";
import { createSummarizer } from "./summarizer.js";
import { createSummaryTextWork } from "./summary-text-work.js";

const work = createSummaryTextWork({ workers: 2, budgetMs: 120_000 });
const tight = createSummaryTextWork({ workers: 1, budgetMs: 10 });
after(() => Promise.all([work.close(), tight.close()]));

const report = (chars: number) => {
  const sentences = [
    "The survey measured the flow at each gauge twice a day.",
    "We found the upstream readings drifted after heavy rain, so the team recalibrated the sensors.",
    "Results improved once the logger clocks were synchronised with the station master.",
  ];
  const parts: string[] = [];
  for (let index = 0, length = 0; length < chars; index++) {
    const part = index % 30 === 0 ? `\n\n## Gauge ${index / 30}\n\n` : `${sentences[index % sentences.length]} `;
    parts.push(part);
    length += part.length;
  }
  return parts.join("");
};

test("the worker computes what the functions compute on the calling thread", async () => {
  const text = report(20_000);
  const options = { source: "agent" as const, ...builtinSummaryLength.summary };
  assert.equal(await work.summarize(text, options), summarizeExtractive(text, options));
  assert.deepEqual(
    await work.outline(text, 400),
    parseOutline(text).filter((section) => section.end - section.start >= 400),
  );
});

test("a text whose summary outlives the budget fails with TEXT_BUDGET_EXCEEDED naming the summarize stage", async () => {
  const summarizer = createSummarizer({
    provider: createBuiltinSummaryProvider(tight),
    work: tight,
    minChars: 500,
    sectionMinChars: 400,
    maxTextChars: 1_000_000,
  });
  await assert.rejects(summarizer.summarize(report(300_000), "agent"), (error: unknown) => {
    assert.ok(isContextHubError(error));
    assert.equal(error.code, "TEXT_BUDGET_EXCEEDED");
    assert.match(error.message, /^summarize: the text took longer than its 10 ms budget/);
    assert.match(error.remedy ?? "", /SUMMARIZER_TEXT_BUDGET_MS/);
    return true;
  });
});

test("node summaries over the budget fail naming their stage: the outline, or the node summaries", async () => {
  const summarizer = createSummarizer({
    provider: createBuiltinSummaryProvider(tight),
    work: tight,
    minChars: 500,
    sectionMinChars: 400,
    maxTextChars: 1_000_000,
  });
  await assert.rejects(
    summarizer.summarizeSections(report(300_000), "agent"),
    (error: unknown) =>
      isContextHubError(error) &&
      error.code === "TEXT_BUDGET_EXCEEDED" &&
      /^(outline|node summaries): the text took longer than its 10 ms budget/.test(error.message),
  );
});
