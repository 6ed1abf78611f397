import { test } from "node:test";
import assert from "node:assert/strict";
import { cutOrder, estimateTokens, fitToBudget, keepOrder, type Kept, type StartPartName } from "./start-budget.js";

const none = (): Record<StartPartName, number[]> => ({
  handoffs: [],
  pinned_memories: [],
  session_summary: [],
  session_events: [],
  entries: [],
});

/** An answer that costs `fixed` plus exactly the kept items' costs. */
const exact =
  (costs: Record<StartPartName, number[]>, fixed: number) =>
  (kept: Kept): number =>
    fixed + keepOrder.reduce((sum, part) => sum + costs[part].slice(0, kept[part]).reduce((a, b) => a + b, 0), 0);

test("tokens are estimated per pre-tokenizer piece: words, digit groups, punctuation runs, whitespace", () => {
  assert.equal(estimateTokens(""), 0);
  assert.equal(estimateTokens("hello world"), 2);
  assert.equal(estimateTokens("integrator"), 2, "a long word counts one token per six characters");
  assert.equal(estimateTokens("12345678"), 3, "digits go in groups of three");
  assert.equal(estimateTokens('{"a": 1}'), 5);
  assert.equal(estimateTokens("    \n"), 1, "a whitespace run is one piece");
  assert.equal(estimateTokens("Grüße"), 3, "outside ASCII, one per two characters");
  assert.equal(estimateTokens("積分器"), 3, "one per character of Chinese, Japanese or Korean script");
  assert.equal(estimateTokens("01a23bb4-0a6c-77f2-b7bf-f6f0a48b70ff"), 24, "an id costs more than characters / 4");
  assert.equal(estimateTokens("nonce=6ebd556ad0666239"), 1 + 1 + 10);
});

test("the estimate does not depend on which ids and nonces a text carries, only on their shape", () => {
  const fenced = (id: string, nonce: string) =>
    `"summary": "<<<UNTRUSTED_DATA nonce=${nonce} entry=${id}>>>\\nText\\n<<<END_UNTRUSTED_DATA nonce=${nonce} entry=${id}>>>",` +
    ` "message": "the last session ${id} (open)", "hash": "${nonce}${nonce}", "event": "${id}:12"`;
  const estimates = new Set(
    [
      ["01a23bb4-0a6c-77f2-b7bf-f6f0a48b70ff", "6ebd556ad0666239"],
      ["00000000-0000-7000-8000-000000000000", "0000000000000000"],
      ["abcdefab-cdef-7abc-8def-abcdefabcdef", "abcdefabcdefabcd"],
      ["0a0a0a0a-0a0a-7a0a-8a0a-0a0a0a0a0a0a", "a0a0a0a0a0a0a0a0"],
    ].map(([id, nonce]) => estimateTokens(fenced(id!, nonce!))),
  );
  assert.equal(estimates.size, 1);
});

test("parts are cut in the reverse of the order they are kept", () => {
  assert.deepEqual(cutOrder, ["entries", "session_events", "session_summary", "pinned_memories", "handoffs"]);
});

test("everything is kept when it fits", () => {
  const costs = { ...none(), handoffs: [10, 10], entries: [5, 5, 5] };
  assert.deepEqual(fitToBudget(costs, 100, exact(costs, 20)), {
    handoffs: 2,
    pinned_memories: 0,
    session_summary: 0,
    session_events: 0,
    entries: 3,
  });
});

test("the least needed part loses items first, and each part keeps a prefix of its order", () => {
  const costs = {
    handoffs: [30],
    pinned_memories: [20, 20],
    session_summary: [15],
    session_events: [5, 5, 5],
    entries: [10, 10, 10],
  };
  // 100 - 10 fixed = 90: handoffs 30, memories 40, summary 15 leave 5: one event, no entry.
  assert.deepEqual(fitToBudget(costs, 100, exact(costs, 10)), {
    handoffs: 1,
    pinned_memories: 2,
    session_summary: 1,
    session_events: 1,
    entries: 0,
  });
});

test("the first item that does not fit ends the answer: smaller items after it are left out too", () => {
  const costs = { ...none(), handoffs: [10, 500, 10], pinned_memories: [20], entries: [30] };
  assert.deepEqual(fitToBudget(costs, 100, exact(costs, 10)), {
    handoffs: 1,
    pinned_memories: 0,
    session_summary: 0,
    session_events: 0,
    entries: 0,
  });
});

test("when the whole answer measures more than its items' costs, items are dropped in cut order until it fits", () => {
  const costs = { ...none(), handoffs: [10, 10], entries: [10, 10] };
  // Each kept item really costs 15 (separators the item costs leave out).
  const measured = (kept: Kept) => 10 + 15 * (kept.handoffs + kept.entries);
  const kept = fitToBudget(costs, 50, measured);
  assert.deepEqual([kept.handoffs, kept.entries], [2, 0]);
  assert.ok(measured(kept) <= 50);
});

test("an answer whose fixed part alone exceeds the budget keeps nothing", () => {
  const costs = { ...none(), handoffs: [1], entries: [1] };
  assert.deepEqual(Object.values(fitToBudget(costs, 50, exact(costs, 60))), [0, 0, 0, 0, 0]);
});
