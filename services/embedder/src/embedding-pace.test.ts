import { test } from "node:test";
import assert from "node:assert/strict";
import { isContextHubError } from "@context-hub/common";
import { embedWithinBudget } from "./embedding-pace.js";

/**
 * A clock that the fake embedding moves on: each text costs what `costOf`
 * says, in milliseconds, so every pace is exact and nothing depends on the
 * host's speed.
 */
function run(texts: string[], costOf: (index: number) => number, budgetMs: number) {
  let clock = 0;
  let embedded = 0;
  const outcome = (() => {
    try {
      return embedWithinBudget(
        texts,
        (text) => {
          clock += costOf(embedded);
          embedded += 1;
          return text.length;
        },
        { budgetMs, budgetSetting: "EMBEDDER_TEXT_BUDGET_MS" },
        () => clock,
      );
    } catch (error) {
      return error;
    }
  })();
  return { outcome, embedded, clock };
}

const chunks = Array.from({ length: 100 }, () => "x".repeat(1_500));
/** Costs whose running total grows as the characters done to the power `exponent` (Heaps' law), `total` in all. */
const heaps = (exponent: number, total: number) => (index: number) =>
  (total * ((index + 1) ** exponent - index ** exponent)) / chunks.length ** exponent;

test("a text of new words throughout is refused within a few tenths of its budget, naming the projected time", () => {
  // 100 chunks at 40 ms each: 4,000 ms of work against a 1,500 ms budget.
  const { outcome, embedded, clock } = run(chunks, () => 40, 1_500);
  assert.ok(isContextHubError(outcome), String(outcome));
  assert.equal(outcome.code, "TEXT_BUDGET_EXCEEDED");
  assert.match(
    outcome.message,
    /^embed: at the pace of its last 6000 characters, the text would take at least 1907 ms, over its 1500 ms budget, so the work was stopped after 480 ms and nothing was changed$/,
  );
  assert.equal(
    outcome.remedy,
    "split the text into smaller entries, or ask an operator to raise the budget (EMBEDDER_TEXT_BUDGET_MS)",
  );
  assert.deepEqual(outcome.details, { stage: "embed", budget_ms: 1_500, projected_ms: 1_907 });
  assert.equal(clock, 480);
  assert.equal(embedded, 12);
});

test("a text that fits its budget at an even pace is embedded whole, every text in order", () => {
  const { outcome, embedded } = run(chunks, () => 14, 1_500);
  assert.deepEqual(
    outcome,
    chunks.map((chunk) => chunk.length),
  );
  assert.equal(embedded, chunks.length);
});

test("a text whose pace falls as its new words thin out is not refused while it fits its budget", () => {
  for (const exponent of [0.4, 0.5, 0.6, 0.7]) {
    const { outcome, embedded, clock } = run(chunks, heaps(exponent, 2_850), 3_000);
    assert.ok(Array.isArray(outcome), `exponent ${exponent}: ${String(outcome)}`);
    assert.equal(embedded, chunks.length);
    assert.ok(Math.abs(clock - 2_850) < 1e-6);
  }
});

test("a text of new words throughout that would fit is embedded whole; one far past is refused early", () => {
  assert.ok(Array.isArray(run(chunks, () => 29, 3_000).outcome), "2,900 ms within 3,000");
  const over = run(chunks, () => 60, 3_000);
  assert.ok(isContextHubError(over.outcome));
  assert.ok(over.clock < 1_500, `stopped after ${over.clock} ms of 6,000`);
});

test("short texts, and a call over before a second projection, are never refused by pace", () => {
  assert.deepEqual(run(["one"], () => 10_000, 1_500).outcome, [3]);
  assert.deepEqual(run(["a", "b"], () => 100, 1_500).outcome, [1, 1]);
});
