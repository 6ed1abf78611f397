import { test } from "node:test";
import assert from "node:assert/strict";
import { setImmediate as nextTurn } from "node:timers/promises";
import { isContextHubError } from "../errors.js";
import { createConcurrencyLimiter, mapWithConcurrency, splitIntoBatches } from "./concurrency.js";

test("splitIntoBatches keeps order and cuts at the size", () => {
  assert.deepEqual(splitIntoBatches([1, 2, 3, 4, 5], 2), [[1, 2], [3, 4], [5]]);
  assert.deepEqual(splitIntoBatches([], 3), []);
  assert.throws(() => splitIntoBatches([1], 0), RangeError);
});

test("mapWithConcurrency returns results in item order and never runs more than the limit", async () => {
  let running = 0;
  let peak = 0;
  // Items finish out of order: each takes as many turns of the event loop as its number.
  const results = await mapWithConcurrency([30, 5, 20, 1, 10, 2], 2, async (turns, index) => {
    running++;
    peak = Math.max(peak, running);
    for (let turn = 0; turn < turns; turn++) await nextTurn();
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

/** Work that finishes when the test opens its gate, recording that it started. */
function gated(started: string[], name: string) {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const work = async () => {
    started.push(name);
    await opened;
    return name;
  };
  return { open, work };
}

test("a shared limiter never runs more than its limit and starts waiting high-priority work before low", async () => {
  const limiter = createConcurrencyLimiter(2);
  const started: string[] = [];
  const plan = [
    ["first", "low"],
    ["second", "high"],
    ["section-1", "low"],
    ["summary-1", "high"],
    ["section-2", "low"],
    ["summary-2", "high"],
  ] as const;
  const gates = new Map(plan.map(([name]) => [name, gated(started, name)]));
  const runs = plan.map(([name, priority]) => limiter.run(gates.get(name)!.work, { priority }));
  await Promise.resolve();
  assert.deepEqual([limiter.active, limiter.waiting], [2, 4]);
  for (const name of ["first", "second", "summary-1", "summary-2", "section-1"] as const) {
    gates.get(name)!.open();
    await runs[plan.findIndex(([candidate]) => candidate === name)];
    assert.ok(limiter.active <= 2, `${limiter.active} active after ${name}`);
  }
  gates.get("section-2")!.open();
  assert.deepEqual(await Promise.all(runs), ["first", "second", "section-1", "summary-1", "section-2", "summary-2"]);
  assert.deepEqual(
    started,
    ["first", "second", "summary-1", "summary-2", "section-1", "section-2"],
    "waiting summaries start before waiting sections",
  );
  assert.deepEqual([limiter.active, limiter.waiting], [0, 0]);
});

test("an abort while waiting rejects as DEADLINE_EXCEEDED without running the work, and a failure frees its place", async () => {
  const limiter = createConcurrencyLimiter(1);
  const started: string[] = [];
  const holder = gated(started, "holder");
  const running = limiter.run(holder.work);
  const controller = new AbortController();
  const waiting = limiter.run(async () => started.push("never"), { signal: controller.signal, priority: "low" });
  controller.abort();
  await assert.rejects(
    waiting,
    (error: unknown) =>
      isContextHubError(error) &&
      error.code === "DEADLINE_EXCEEDED" &&
      /waiting for a free provider request \(at most 1 at once\)/.test(error.message),
  );
  assert.equal(limiter.waiting, 0);
  holder.open();
  await running;
  await assert.rejects(
    limiter.run(async () => {
      throw new Error("provider down");
    }),
    /provider down/,
  );
  assert.equal(await limiter.run(async () => "next"), "next");
  assert.deepEqual(started, ["holder"]);
  await assert.rejects(
    limiter.run(async () => "late", { signal: AbortSignal.abort() }),
    (error: unknown) => isContextHubError(error) && error.code === "DEADLINE_EXCEEDED",
  );
});

test("low-priority work holds at most its own limit of places, so high-priority work always finds one", async () => {
  const limiter = createConcurrencyLimiter(4, { lowLimit: 2 });
  const started: string[] = [];
  const sections = ["section-1", "section-2", "section-3", "section-4"].map((name) => ({
    name,
    ...gated(started, name),
  }));
  const sectionRuns = sections.map((section) => limiter.run(section.work, { priority: "low" }));
  await Promise.resolve();
  assert.deepEqual(
    started,
    ["section-1", "section-2"],
    "two sections run; the other two wait although places are free",
  );
  assert.deepEqual([limiter.active, limiter.waiting], [2, 2]);

  const summary = gated(started, "summary");
  const summaryRun = limiter.run(summary.work, { priority: "high" });
  await Promise.resolve();
  assert.deepEqual(started, ["section-1", "section-2", "summary"], "the summary starts at once");
  summary.open();
  assert.equal(await summaryRun, "summary");

  sections[0]!.open();
  await sectionRuns[0];
  // The freed place is handed on once the finished run has settled.
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(started.slice(3), ["section-3"], "a finished section makes room for the next one only");
  for (const section of sections) section.open();
  await Promise.all(sectionRuns);
  assert.deepEqual([limiter.active, limiter.waiting], [0, 0]);
  assert.throws(() => createConcurrencyLimiter(4, { lowLimit: 5 }), /from 1 to 4/);
});
