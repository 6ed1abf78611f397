import { Worker } from "node:worker_threads";
import type { CompiledPattern } from "./grep.js";
import type { GrepTextOptions, GrepTextResult } from "./grep-text.js";
import type { GrepWorkerJob, GrepWorkerMessage } from "./grep-worker.js";

/** How long a grep may run. */
export interface GrepBudget {
  /** Most time one text may take before the pattern is stopped on it. */
  perTextMs: number;
  /** `performance.now()` by which the whole call stops. */
  deadline: number;
  /** Stops the call when the caller goes away. */
  signal?: AbortSignal | undefined;
}

export type GrepTextOutcome =
  | { status: "done"; result: GrepTextResult }
  | { status: "timed_out" }
  | { status: "skipped" };

export interface GrepRunOutcome {
  /** One per text, in order: its result, `timed_out` (stopped on it), or `skipped` (never reached). */
  outcomes: GrepTextOutcome[];
  /** The call's deadline passed, it was aborted, or the pattern timed out on several texts in a row. */
  timedOut: boolean;
}

export interface GrepRunner {
  /** Runs `pattern` over `texts` in a worker thread within `budget`; never blocks the event loop on the pattern. */
  run(
    pattern: CompiledPattern,
    texts: readonly string[],
    options: GrepTextOptions,
    budget: GrepBudget,
  ): Promise<GrepRunOutcome>;
  /** Stops every worker. */
  close(): Promise<void>;
}

export interface GrepRunnerOptions {
  /** Most workers running at once; further calls wait for one. */
  maxWorkers: number;
}

/** After this many texts in a row time out, the pattern is taken to be hopeless and the call stops. */
const maxConsecutiveTimeouts = 3;

type BatchEnd = "done" | "per_text" | "deadline" | "aborted";

/**
 * Runs `job` on `worker` within `budget`: the results it sent, and how the batch ended (every text done, a text past
 * its budget, the deadline, or the caller gone). Rejects when the worker fails.
 */
function runBatch(worker: Worker, job: GrepWorkerJob, budget: GrepBudget) {
  return new Promise<{ results: GrepTextResult[]; end: BatchEnd }>((resolve, reject) => {
    const results: GrepTextResult[] = [];
    let timer: NodeJS.Timeout | undefined;
    const finish = (end: BatchEnd) => {
      clearTimeout(timer);
      worker.off("message", onMessage);
      worker.off("error", onError);
      budget.signal?.removeEventListener("abort", onAbort);
      resolve({ results, end });
    };
    /** Until the worker holds the job (a fresh one loads its code first) only the deadline runs; then each text gets its own budget. */
    const arm = (perText: boolean) => {
      clearTimeout(timer);
      const remaining = budget.deadline - performance.now();
      const byDeadline = !perText || remaining <= budget.perTextMs;
      timer = setTimeout(
        () => finish(byDeadline ? "deadline" : "per_text"),
        Math.max(0, byDeadline ? remaining : budget.perTextMs),
      );
    };
    const onMessage = (message: GrepWorkerMessage) => {
      if (message.type === "done") finish("done");
      else if (message.type === "started") arm(true);
      else {
        results.push(message.result);
        arm(true);
      }
    };
    const onError = (error: Error) => {
      clearTimeout(timer);
      worker.off("message", onMessage);
      budget.signal?.removeEventListener("abort", onAbort);
      reject(error);
    };
    const onAbort = () => finish("aborted");
    worker.on("message", onMessage);
    worker.once("error", onError);
    budget.signal?.addEventListener("abort", onAbort, { once: true });
    if (budget.signal?.aborted === true) {
      finish("aborted");
      return;
    }
    worker.postMessage(job);
    arm(false);
  });
}

/** Grep's worker threads: at most `maxWorkers` at once, idle ones kept for reuse without keeping the process alive. */
interface WorkerPool {
  /** An idle or fresh worker, or the next one freed when all are busy. */
  acquire(): Promise<Worker>;
  /** Hands `worker` to a waiting call, or keeps it idle. */
  release(worker: Worker): void;
  /** Terminates `worker` (a pattern still running on it); a waiting call gets a fresh one. */
  discard(worker: Worker): Promise<void>;
  /** Terminates every worker. */
  terminateAll(): Promise<void>;
}

/** A pool of grep workers, at most `maxWorkers` running at once. */
function createWorkerPool(maxWorkers: number): WorkerPool {
  const idle: Worker[] = [];
  const all = new Set<Worker>();
  const waiting: ((worker: Worker) => void)[] = [];

  const spawn = () => {
    const worker = new Worker(new URL("./grep-worker.js", import.meta.url), {
      resourceLimits: { maxOldGenerationSizeMb: 256 },
    });
    all.add(worker);
    worker.once("exit", () => all.delete(worker));
    return worker;
  };

  const acquire = (): Promise<Worker> => {
    const worker = idle.pop() ?? (all.size < maxWorkers ? spawn() : undefined);
    if (worker !== undefined) {
      worker.ref();
      return Promise.resolve(worker);
    }
    return new Promise((resolve) => waiting.push(resolve));
  };

  const release = (worker: Worker) => {
    const next = waiting.shift();
    if (next !== undefined) {
      next(worker);
      return;
    }
    worker.unref();
    idle.push(worker);
  };

  /** A terminated worker frees its slot: a waiting call gets a fresh one. */
  const discard = async (worker: Worker) => {
    await worker.terminate();
    all.delete(worker);
    const next = waiting.shift();
    if (next !== undefined) next(spawn());
  };

  return {
    acquire,
    release,
    discard,
    async terminateAll() {
      await Promise.all([...all].map((worker) => worker.terminate()));
      idle.length = 0;
    },
  };
}

/**
 * Runs `pattern` over `texts` on `pool`'s workers: each batch resumes at the first text not yet done, a text past its
 * budget is marked timed out, and the call stops at the deadline, when aborted, or after several timeouts in a row.
 */
async function runPattern(
  pool: WorkerPool,
  pattern: CompiledPattern,
  texts: readonly string[],
  textOptions: GrepTextOptions,
  budget: GrepBudget,
): Promise<GrepRunOutcome> {
  const outcomes: GrepTextOutcome[] = texts.map(() => ({ status: "skipped" }));
  let next = 0;
  let consecutiveTimeouts = 0;
  let timedOut = false;
  while (next < texts.length) {
    if (performance.now() >= budget.deadline || budget.signal?.aborted === true) {
      timedOut = true;
      break;
    }
    const worker = await pool.acquire();
    let batch: { results: GrepTextResult[]; end: BatchEnd };
    try {
      batch = await runBatch(
        worker,
        { source: pattern.source, flags: pattern.flags, texts: texts.slice(next), options: textOptions },
        budget,
      );
    } catch (error) {
      await pool.discard(worker);
      throw error;
    }
    for (const result of batch.results) outcomes[next++] = { status: "done", result };
    if (batch.results.length > 0) consecutiveTimeouts = 0;
    if (batch.end === "done") {
      pool.release(worker);
      break;
    }
    // The pattern is still running on the current text: terminating the worker is the only way to stop it.
    await pool.discard(worker);
    if (batch.end !== "per_text") {
      timedOut = true;
      break;
    }
    outcomes[next++] = { status: "timed_out" };
    consecutiveTimeouts++;
    if (consecutiveTimeouts >= maxConsecutiveTimeouts) {
      timedOut = true;
      break;
    }
  }
  return { outcomes, timedOut };
}

/**
 * Runs grep patterns in worker threads so that a catastrophic regular
 * expression cannot stall the store: a text that takes longer than its
 * budget gets its worker terminated (the only way to stop a running regular
 * expression) and the scan resumes on the next text in a fresh worker; the
 * call as a whole stops at its deadline. Idle workers are kept for reuse and
 * do not keep the process alive.
 */
export function createGrepRunner(options: GrepRunnerOptions): GrepRunner {
  const pool = createWorkerPool(options.maxWorkers);
  let closed = false;
  return {
    async run(pattern, texts, textOptions, budget) {
      if (closed) throw new Error("the grep runner is closed");
      return runPattern(pool, pattern, texts, textOptions, budget);
    },

    async close() {
      closed = true;
      await pool.terminateAll();
    },
  };
}
