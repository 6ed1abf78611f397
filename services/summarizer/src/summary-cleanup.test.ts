import { test } from "node:test";
import assert from "node:assert/strict";
import { cleanSummary, fitSummary, hasReasoning, stripPreamble, stripReasoning } from "./summary-cleanup.js";

test("think blocks are removed wherever they are, in every common spelling", () => {
  assert.equal(
    stripReasoning("<think>\nThe user wants X. Let me plan.\n</think>\n\nThe team moved to Postgres."),
    "The team moved to Postgres.",
  );
  assert.equal(
    stripReasoning('<thinking>a</thinking>Result one. <reasoning type="x">b</reasoning>Result two.'),
    "Result one. Result two.",
  );
  assert.equal(stripReasoning("<THINK>shouting</THINK>Done."), "Done.");
  assert.equal(stripReasoning("<think>first</think><think>second</think>Kept."), "Kept.");
});

test("an orphan closing tag drops everything before it; an unterminated opening tag drops everything after it", () => {
  assert.equal(
    stripReasoning(
      "Okay, the prompt says to summarise... so I will say this.\n</think>\nThe migration failed on a missing index.",
    ),
    "The migration failed on a missing index.",
  );
  assert.equal(stripReasoning("<think>I ran out of tokens while still thinking about"), "");
  assert.equal(stripReasoning("  <think>\nstill going"), "");
});

test("text without reasoning is left alone", () => {
  const plain = "The agent found that iterative scans were off, and decided to enable them; latency fell to 180 ms.";
  assert.equal(stripReasoning(plain), plain);
  assert.equal(cleanSummary(plain), plain);
  assert.equal(hasReasoning(plain), false);
  assert.equal(hasReasoning("x</think>y"), true);
});

test("leading boilerplate is removed", () => {
  const body = "The user wants nightly backups and never a restart during business hours.";
  for (const answer of [
    `Summary: ${body}`,
    `**Summary:** ${body}`,
    `## Summary\n\n${body}`,
    `**Summary**\n${body}`,
    `Here is a summary of the text:\n\n${body}`,
    `Here's a concise one-paragraph summary of the user's note: ${body}`,
    `Sure! Here is the summary you asked for:\n${body}`,
    `Certainly. Here is a summary of the entry.\n${body}`,
    `TL;DR - ${body}`,
    `Concise summary — ${body}`,
    `<think>hmm</think>\nSummary:\n"${body}"`,
  ]) {
    assert.equal(cleanSummary(answer), body, answer);
  }
});

test("a summary that merely starts with similar words keeps them", () => {
  for (const kept of [
    "Here the agent found a race in the cache.",
    "Summary statistics were wrong because the job skipped a shard.",
    "Overviews of each service are now generated nightly.",
    "Summary-based routing was chosen over hashing.",
  ]) {
    assert.equal(stripPreamble(kept), kept);
  }
});

test("the answer becomes one paragraph", () => {
  assert.equal(
    cleanSummary("First line of the summary.\n\nSecond line,\n  continued."),
    "First line of the summary. Second line, continued.",
  );
});

test("a summary over the limit is cut at a word with an ellipsis, and never passes the limit", () => {
  assert.equal(fitSummary("short enough", 20), "short enough");
  assert.equal(fitSummary("The pump ran all night, and the valve stayed open.", 30), "The pump ran all night, and…");
  const cut = fitSummary("word ".repeat(10_000), 20_000);
  assert.equal(cut.length <= 20_000, true);
  assert.match(cut, /^(?:word )*word…$/);
  // Without whitespace in the back half there is no word to keep whole: the cut falls mid-word, never inside a surrogate pair.
  assert.equal(fitSummary("x".repeat(50), 10), `${"x".repeat(9)}…`);
  assert.equal(fitSummary("🙂".repeat(50), 10), `${"🙂".repeat(4)}…`);
});

test("reasoning markup that never closes, or closes another tag, is handled without rescanning", () => {
  assert.equal(stripReasoning("<think>a</thought>Kept."), "Kept.");
  assert.equal(stripReasoning("<thinking <think>x</think>Kept."), "<thinking Kept.");
  assert.equal(stripReasoning("<think kept as text"), "<think kept as text");
  assert.equal(stripReasoning("<thinking>a</thinking><think>b</think>Result. <thought>unfinished"), "Result.");
  assert.equal(stripReasoning("plan</THINK>  \n Result."), "Result.");
});

test("preambles repeated many times are all removed, and whitespace runs without a newline stay one line", () => {
  assert.equal(stripPreamble(`${"Summary: ".repeat(1000)}The valve stayed open.`), "The valve stayed open.");
  assert.equal(stripPreamble(`#${" ".repeat(10_000)}\n Summary\n\nThe valve stayed open.`), "The valve stayed open.");
  assert.equal(stripPreamble(`Summary${" ".repeat(10_000)}x`), `Summary${" ".repeat(10_000)}x`);
  assert.equal(cleanSummary("One  line\t\tstays,   \n\n  then joins."), "One line stays, then joins.");
});
