import { test } from "node:test";
import assert from "node:assert/strict";
import { summarizeExtractive } from "./extractive-summary.js";

const summaryLength = { targetWords: 100, maxWords: 250, maxSentences: 12 };
const words = (text: string) => text.split(/\s+/).filter(Boolean).length;

const topics = ["database", "index", "query", "latency", "cache", "replica", "schema", "vector", "backup", "migration"];
const longReport = Array.from({ length: 60 }, (_, index) => {
  const topic = topics[index % topics.length]!;
  return `Sentence ${index + 1} explains how the ${topic} work affects the search service and its ${topics[(index * 3) % topics.length]} settings.`;
}).join(" ");

test("a long text gets a summary of about 100 and never more than 250 words, in original order", () => {
  const summary = summarizeExtractive(longReport, { source: "agent", ...summaryLength });
  assert.ok(words(summary) >= 100 && words(summary) <= 250, `${words(summary)} words`);
  const numbers = [...summary.matchAll(/Sentence (\d+) /g)].map((match) => Number(match[1]));
  assert.ok(numbers.length >= 5);
  assert.deepEqual(
    numbers,
    [...numbers].sort((left, right) => left - right),
    "sentences keep their order",
  );
  for (const sentence of summary.split(/(?<=\.) /))
    assert.ok(longReport.includes(sentence), `"${sentence}" is a whole sentence of the text`);
});

test("chosen sentences come back in text order even when a later one scores higher", () => {
  const text =
    "The cache service stores session data for the web tier. It runs on three nodes in two zones. Operators restart it every week. We found the eviction bug and decided to fix it because the results were wrong.";
  const summary = summarizeExtractive(text, { source: "agent", ...summaryLength, targetWords: 30 });
  assert.match(summary, /^The cache service stores session data for the web tier\. .*We found the eviction bug/);
});

test("a short text's summary takes about half its words", () => {
  const text =
    "The cache layer was rewritten. It now evicts entries by age. Reads got faster by half. Writes did not change. The team is happy with it. Memory use went down too.";
  const summary = summarizeExtractive(text, { source: "agent", ...summaryLength });
  assert.ok(
    words(summary) >= words(text) / 2 - 1 && words(summary) < words(text),
    `${words(summary)} of ${words(text)} words`,
  );
});

test("Markdown syntax and code never reach the summary", () => {
  const text = [
    "# Deployment notes",
    "",
    "The **gateway** must run behind the [ingress](https://example.com/ingress) with TLS.",
    "",
    "- Every replica should use the `readiness` probe.",
    "- Never expose the store port outside the cluster.",
    "",
    "```yaml",
    "replicas: 3 # must be odd",
    "```",
    "",
    "> Quoted: the chart needs a values file.",
    "",
    "| key | value |",
    "|-----|-------|",
    "| must | table |",
  ].join("\n");
  const summary = summarizeExtractive(text, { source: "user", ...summaryLength });
  assert.match(summary, /gateway must run behind the ingress with TLS/);
  assert.match(summary, /readiness probe/);
  assert.doesNotMatch(summary, /[#`*>|[\]]|^- |replicas: 3|https:/);
});

test("user texts favour intent and constraints, agent texts findings and decisions", () => {
  const text = [
    "The service handles search for the whole organisation and stores many entries every day.",
    "We must keep the write latency below fifty milliseconds and should never drop the access checks.",
    "I found that the index was missing, so I decided to add it because the scans were slow.",
    "The service handles reads for many teams and stores entries for the organisation every day.",
  ].join(" ");
  const options = { ...summaryLength, targetWords: 10, maxSentences: 1 };
  assert.match(summarizeExtractive(text, { source: "user", ...options }), /must keep the write latency/);
  assert.match(summarizeExtractive(text, { source: "agent", ...options }), /found that the index was missing/);
});

test("a single sentence over the limit is cut at a word with an ellipsis; a text without prose gives nothing", () => {
  const sentence = `${Array.from({ length: 300 }, (_, index) => `word${index}`).join(" ")}.`;
  const summary = summarizeExtractive(sentence, { source: "agent", ...summaryLength });
  assert.equal(words(summary), 250);
  assert.ok(summary.endsWith("word249…"));
  assert.equal(summarizeExtractive("```\ncode only\n```\n# Heading", { source: "agent", ...summaryLength }), "");
});

test("summaries are deterministic and focus terms pull in matching sentences", () => {
  assert.equal(
    summarizeExtractive(longReport, { source: "user", ...summaryLength }),
    summarizeExtractive(longReport, { source: "user", ...summaryLength }),
  );
  const text = "Alpha teams ship the product. Backups run every night on the replica. Alpha teams review the product.";
  const options = { source: "unspecified", targetWords: 3, maxWords: 50, maxSentences: 1 } as const;
  assert.match(summarizeExtractive(text, options), /Alpha teams ship/);
  assert.match(summarizeExtractive(text, { ...options, focus: "Replica backups" }), /Backups run every night/);
});
