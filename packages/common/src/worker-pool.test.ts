import assert from "node:assert/strict";
import { test } from "node:test";
import { getPriority } from "node:os";
import { isContextHubError } from "./errors.js";
import { createWorkerPool, workerNiceness, type WorkerPool, type WorkerPoolOptions } from "./worker-pool.js";

const script = new URL("./testing/pool-test-worker.js", import.meta.url);

function openPool(t: { after(fn: () => Promise<void>): void }, options: Partial<WorkerPoolOptions> = {}): WorkerPool {
  const pool = createWorkerPool({ name: "test", script, maxWorkers: 2, ...options });
  t.after(() => pool.close());
  return pool;
}

const generous = 60_000;

type WaitAsync = (cells: Int32Array, index: number, value: number) => { async: boolean; value: unknown };

/** Resolves once slot `index` of `cells` holds `value`; the test worker notifies the slot on every change. */
async function whenCell(cells: Int32Array, index: number, value: number): Promise<void> {
  // Atomics.waitAsync is in Node 20 but not in the ES2023 library types.
  const waitAsync = (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync;
  for (let seen = Atomics.load(cells, index); seen !== value; seen = Atomics.load(cells, index)) {
    const waited = waitAsync(cells, index, seen);
    if (waited.async) await waited.value;
  }
}

test("a job runs in a worker and the worker is reused for the next one", async (t) => {
  const pool = openPool(t);
  const first = await pool.run<{ input: unknown; threadId: number }>(
    "echo",
    { text: "héllo" },
    { stage: "echo", budgetMs: generous },
  );
  const second = await pool.run<{ input: unknown; threadId: number }>("echo", 42, {
    stage: "echo",
    budgetMs: generous,
  });
  assert.deepEqual(first.input, { text: "héllo" });
  assert.equal(second.input, 42);
  assert.notEqual(first.threadId, 0, "the job ran off the main thread");
  assert.equal(second.threadId, first.threadId);
  assert.equal(pool.stats().terminated, 0);
});

test("workers run the pool's steps of nice value below the threads that answer calls, which keep theirs", async (t) => {
  const mainThread = getPriority();
  for (const [options, expected] of [
    [{}, Math.min(mainThread + workerNiceness, 19)],
    [{ niceness: 12 }, Math.min(mainThread + 12, 19)],
    [{ niceness: 0 }, mainThread],
  ] as const) {
    const pool = openPool(t, options);
    const seen = await pool.run<number>("niceness", null, { stage: "niceness", budgetMs: generous });
    assert.equal(seen, expected, JSON.stringify(options));
    assert.equal(getPriority(), mainThread, "the calling thread keeps its nice value");
  }
});

test("a job over its budget is stopped by terminating its worker, fails naming its stage, and the worker is replaced", async (t) => {
  const pool = openPool(t, { maxWorkers: 1 });
  const before = await pool.run<{ threadId: number }>("echo", null, { stage: "echo", budgetMs: generous });
  let timerFired = false;
  let settled = false;
  const spinning = pool
    .run("spin", null, { stage: "summarize", budgetMs: 400, budgetSetting: "SUMMARIZER_TEXT_BUDGET_MS" })
    .finally(() => (settled = true));
  // The main thread stays free while the job spins: the event loop turns before the budget ends the job.
  setImmediate(() => (timerFired = !settled));
  await assert.rejects(spinning, (error: unknown) => {
    assert.ok(isContextHubError(error));
    assert.equal(error.code, "TEXT_BUDGET_EXCEEDED");
    assert.match(error.message, /^summarize: the text took longer than its 400 ms budget/);
    assert.match(error.remedy ?? "", /SUMMARIZER_TEXT_BUDGET_MS/);
    assert.deepEqual(error.details, { stage: "summarize", budget_ms: 400 });
    return true;
  });
  assert.ok(timerFired, "the main thread's event loop turned while the job was running");
  assert.equal(pool.stats().terminated, 1);
  const after = await pool.run<{ threadId: number }>("echo", null, { stage: "echo", budgetMs: generous });
  assert.notEqual(after.threadId, before.threadId, "a fresh worker took the place of the terminated one");
  assert.equal(pool.stats().workers, 1);
});

test("calls run concurrently up to maxWorkers, and further calls wait for a free worker", async (t) => {
  const pool = openPool(t, { maxWorkers: 2 });
  const shared = new SharedArrayBuffer(8);
  const cells = new Int32Array(shared);
  const jobs = [0, 1, 2].map(() => pool.run<number>("hold", { shared }, { stage: "hold", budgetMs: generous }));
  // Two jobs are inside their workers at once; the third waits for one of them.
  await whenCell(cells, 1, 2);
  assert.equal(pool.stats().waiting, 1);
  assert.equal(pool.stats().workers, 2);
  Atomics.store(cells, 0, 1);
  Atomics.notify(cells, 0);
  const threads = await Promise.all(jobs);
  assert.equal(Atomics.load(cells, 1), 3);
  assert.equal(new Set(threads).size, 2, "the three jobs shared the two workers");
  assert.equal(pool.stats().waiting, 0);
});

test("a task's own error reaches the caller unchanged and keeps its worker", async (t) => {
  const pool = openPool(t, { maxWorkers: 1 });
  const before = await pool.run<{ threadId: number }>("echo", null, { stage: "echo", budgetMs: generous });
  await assert.rejects(
    pool.run("refuse", null, { stage: "screen", budgetMs: generous }),
    (error: unknown) =>
      isContextHubError(error) &&
      error.code === "INVALID_ARGUMENT" &&
      error.message === "the input is not acceptable" &&
      error.remedy === "send another",
  );
  const after = await pool.run<{ threadId: number }>("echo", null, { stage: "echo", budgetMs: generous });
  assert.equal(after.threadId, before.threadId);
  assert.equal(pool.stats().terminated, 0);
});

test("a worker that dies fails its call as internal, naming the stage, and is replaced", async (t) => {
  const pool = openPool(t, { maxWorkers: 1 });
  await assert.rejects(pool.run("crash", null, { stage: "outline", budgetMs: generous }), (error: unknown) => {
    assert.ok(isContextHubError(error));
    assert.equal(error.code, "INTERNAL");
    assert.match(error.message, /^outline: its worker stopped before it finished \(the worker broke\)/);
    return true;
  });
  const after = await pool.run<{ input: unknown }>("echo", "still here", { stage: "echo", budgetMs: generous });
  assert.equal(after.input, "still here");
  assert.equal(pool.stats().terminated, 1);
});

test("aborting a running job terminates its worker; aborting a waiting call takes it out of the queue", async (t) => {
  const pool = openPool(t, { maxWorkers: 1 });
  const running = new AbortController();
  const spinning = pool.run("spin", null, { stage: "embed", budgetMs: generous, signal: running.signal });
  const queued = new AbortController();
  const waiting = pool.run("echo", null, { stage: "embed", budgetMs: generous, signal: queued.signal });
  // A call finding no free worker joins the queue before run returns.
  assert.equal(pool.stats().waiting, 1);
  queued.abort();
  await assert.rejects(
    waiting,
    (error: unknown) =>
      isContextHubError(error) && error.code === "DEADLINE_EXCEEDED" && /^embed: stopped because/.test(error.message),
  );
  assert.equal(pool.stats().waiting, 0);
  running.abort();
  await assert.rejects(spinning, (error: unknown) => isContextHubError(error) && error.code === "DEADLINE_EXCEEDED");
  assert.equal(pool.stats().terminated, 1);
  const after = await pool.run<{ input: unknown }>("echo", 1, { stage: "echo", budgetMs: generous });
  assert.equal(after.input, 1);
});

test("a worker whose start-up fails fails the call with the start-up's error", async (t) => {
  const pool = openPool(t, { maxWorkers: 1, workerData: { failStart: true }, keepWarm: false });
  await assert.rejects(
    pool.warm(),
    (error: unknown) =>
      isContextHubError(error) && error.code === "PROVIDER_ERROR" && error.message === "the model could not be loaded",
  );
  assert.equal(pool.isWarm(), false);
  await assert.rejects(
    pool.run("echo", null, { stage: "embed", budgetMs: generous }),
    (error: unknown) => isContextHubError(error) && error.code === "PROVIDER_ERROR",
  );
});

test("warm starts a worker ahead of the first call", async (t) => {
  const pool = openPool(t, { maxWorkers: 2 });
  assert.equal(pool.isWarm(), false);
  await pool.warm();
  assert.equal(pool.isWarm(), true);
  assert.equal(pool.stats().workers, 1);
});

test("closing the pool while a worker starts ends its warm-up without an error", async (t) => {
  const pool = openPool(t, { maxWorkers: 1 });
  const warming = pool.warm();
  await pool.close();
  await warming;
  assert.equal(pool.isWarm(), false);
  await assert.rejects(pool.warm(), (error: unknown) => isContextHubError(error) && /closed/.test(error.message));
});

test("close fails running and waiting calls and refuses new ones", async (t) => {
  const pool = openPool(t, { maxWorkers: 1 });
  await pool.warm();
  const spinning = pool.run("spin", null, { stage: "summarize", budgetMs: generous });
  const waiting = pool.run("echo", null, { stage: "summarize", budgetMs: generous });
  assert.equal(pool.stats().waiting, 1);
  const failures = Promise.all([
    assert.rejects(
      spinning,
      (error: unknown) =>
        isContextHubError(error) &&
        error.code === "INTERNAL" &&
        error.message === "summarize: its worker stopped before it finished (the test worker pool closed)",
    ),
    assert.rejects(waiting, /the test worker pool is closed/),
  ]);
  await pool.close();
  await failures;
  await assert.rejects(
    pool.run("echo", null, { stage: "summarize", budgetMs: generous }),
    /the test worker pool is closed/,
  );
  assert.equal(pool.stats().workers, 0);
});
