import { test } from "node:test";
import assert from "node:assert/strict";
import { mapWithConcurrency, splitIntoBatches } from "./concurrency.js";

test("splitIntoBatches keeps order and cuts at the size", () => {
  assert.deepEqual(splitIntoBatches([1, 2, 3, 4, 5], 2), [[1, 2], [3, 4], [5]]);
  assert.deepEqual(splitIntoBatches([], 3), []);
  assert.throws(() => splitIntoBatches([1], 0), RangeError);
});

test("mapWithConcurrency returns results in item order and never runs more than the limit", async () => {
  let running = 0;
  let peak = 0;
  const results = await mapWithConcurrency([30, 5, 20, 1, 10, 2], 2, async (delay, index) => {
    running++;
    peak = Math.max(peak, running);
    await new Promise((resolve) => setTimeout(resolve, delay));
    running--;
    return index * 10;
  });
  assert.deepEqual(results, [0, 10, 20, 30, 40, 50]);
  assert.equal(peak, 2);
});

test("the first failure rejects, aborts running work and starts nothing more", async () => {
  const started: number[] = [];
  let abortedSeen = false;
  const failure = new Error("boom");
  await assert.rejects(
    mapWithConcurrency([0, 1, 2, 3, 4], 2, async (item, _index, signal) => {
      started.push(item);
      if (item === 1) throw failure;
      await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
      abortedSeen = signal.aborted;
      throw new Error("aborted late");
    }),
    (error: unknown) => error === failure,
  );
  assert.deepEqual(started, [0, 1]);
  assert.ok(abortedSeen);
});
