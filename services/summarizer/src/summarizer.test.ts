import { after, test } from "node:test";
import assert from "node:assert/strict";
import { headingCharLimit, isContextHubError, summaryCharLimit } from "@context-hub/common";
import { createBuiltinSummaryProvider } from "./builtin-summary-provider.js";
import { createSummarizer } from "./summarizer.js";
import type { SummaryProvider } from "./summary-provider.js";
import { createSummaryTextWork } from "./summary-text-work.js";

const work = createSummaryTextWork({ workers: 1, budgetMs: 60_000 });
after(() => work.close());

const paragraph = (topic: string) =>
  `The ${topic} work found a slow path in the service. We decided to rewrite the ${topic} handler because it blocked requests. The result is a faster ${topic} flow for every caller. Tests cover the ${topic} change now.`;

test("texts under minChars get an empty summary without asking the provider", async () => {
  let calls = 0;
  const provider: SummaryProvider = {
    describe: () => ({ provider: "counting", model: "m" }),
    summarize: async () => `${++calls}`,
    summarizeSections: async ({ sections }) => sections.map(() => "s"),
  };
  const summarizer = createSummarizer({ provider, work, minChars: 500, sectionMinChars: 400, maxTextChars: 10_000 });
  assert.equal(await summarizer.summarize("x".repeat(499), "user"), "");
  assert.equal(calls, 0);
  assert.equal(await summarizer.summarize("x".repeat(500), "user"), "1");
  assert.deepEqual(summarizer.describe(), { provider: "counting", model: "m", minChars: 500 });
});

test("sections over the threshold get one or two sentences each, with outline ids and spans", async () => {
  const text = [
    `# Cache`,
    paragraph("cache"),
    `## Eviction`,
    paragraph("eviction"),
    `## Tiny`,
    `Too short.`,
    `# Search`,
    paragraph("search"),
  ].join("\n\n");
  const summarizer = createSummarizer({
    provider: createBuiltinSummaryProvider(work),
    work,
    minChars: 500,
    sectionMinChars: 150,
    maxTextChars: 100_000,
  });
  const sections = await summarizer.summarizeSections(text, "agent");
  assert.deepEqual(
    sections.map((s) => s.nodeId),
    ["cache", "cache/eviction", "search"],
  );
  const eviction = sections[1]!;
  assert.equal(text.slice(eviction.start, eviction.end).trimEnd(), `## Eviction\n\n${paragraph("eviction")}`);
  assert.equal(eviction.level, 2);
  assert.equal(eviction.heading, "Eviction");
  for (const section of sections) {
    const sentences = section.summary.split(/(?<=[.!?]) /);
    assert.ok(sentences.length >= 1 && sentences.length <= 2, section.summary);
    assert.ok(section.summary.split(" ").length <= 50);
  }
  assert.match(sections[2]!.summary, /search/);
});

test("texts over maxTextChars are INVALID_ARGUMENT for both operations", async () => {
  const summarizer = createSummarizer({
    provider: createBuiltinSummaryProvider(work),
    work,
    minChars: 10,
    sectionMinChars: 10,
    maxTextChars: 100,
  });
  for (const call of [
    () => summarizer.summarize("x".repeat(101), "user"),
    () => summarizer.summarizeSections("x".repeat(101), "user"),
  ]) {
    await assert.rejects(call(), (error: unknown) => isContextHubError(error) && error.code === "INVALID_ARGUMENT");
  }
});

test("a provider answering with the wrong number of section summaries is a PROVIDER_ERROR naming provider, model and the counts", async () => {
  const provider: SummaryProvider = {
    describe: () => ({ provider: "fake", model: "fake-sum-1" }),
    summarize: async () => "summary",
    summarizeSections: async ({ sections }) => sections.slice(1).map(() => "s"),
  };
  const text = [`# Cache`, paragraph("cache"), `# Search`, paragraph("search")].join("\n\n");
  const summarizer = createSummarizer({ provider, work, minChars: 10, sectionMinChars: 10, maxTextChars: 100_000 });
  await assert.rejects(summarizer.summarizeSections(text, "agent"), (error: unknown) => {
    assert.ok(isContextHubError(error));
    assert.equal(error.code, "PROVIDER_ERROR");
    assert.equal(error.message, "fake section summaries (model fake-sum-1) failed: 1 summaries for 2 sections");
    return true;
  });
});

test("a provider's answers longer than the store's limits are cut at a word with an ellipsis: summary, node summaries and headings", async () => {
  const rambling = "the model kept writing about the valve ".repeat(2_000);
  const provider: SummaryProvider = {
    describe: () => ({ provider: "rambling", model: "m" }),
    summarize: async () => rambling,
    summarizeSections: async ({ sections }) => sections.map(() => rambling),
  };
  const heading = "Valve ".repeat(500).trim();
  const text = `# ${heading}\n\n${paragraph("valve").repeat(5)}`;
  const summarizer = createSummarizer({ provider, work, minChars: 500, sectionMinChars: 150, maxTextChars: 100_000 });
  const summary = await summarizer.summarize(text, "agent");
  assert.ok(
    summary.length <= summaryCharLimit && summary.length > summaryCharLimit - 100,
    `${summary.length} characters`,
  );
  const kept = summary.slice(0, -1);
  assert.ok(
    summary.endsWith("…") && rambling.startsWith(kept) && rambling.charAt(kept.length) === " ",
    "cut after a whole word",
  );
  const [section] = await summarizer.summarizeSections(text, "agent");
  assert.ok(section!.summary.length <= summaryCharLimit && section!.summary.endsWith("…"));
  assert.ok(
    section!.heading.length <= headingCharLimit &&
      heading.startsWith(section!.heading.slice(0, -1)) &&
      section!.heading.endsWith("Valve…"),
  );
});
