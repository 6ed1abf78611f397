/**
 * One job on one pooled worker: its time budget, which really interrupts (a
 * job over budget gets its worker terminated), the caller's abort, and the
 * worker's end while the job runs; each ends the job with its own error and
 * tells the pool whether the worker can be reused.
 */
import type { Transferable, Worker } from "node:worker_threads";
import { ContextHubError, isContextHubError } from "./errors.js";
import { counter } from "./metrics.js";
import { fromWorkerError, type FromWorker, type ToWorker } from "./worker-protocol.js";

/** One call's limits. */
export interface WorkerJobOptions {
  /** What the work is, named in every error of the call, e.g. "summarize". */
  stage: string;
  /**
   * Most milliseconds the job may run once its worker has it; past that the
   * worker is terminated (the only way to stop a running regular expression
   * or loop) and the call fails with TEXT_BUDGET_EXCEEDED. Waiting for a free
   * worker, and a fresh worker's start-up, do not count: the caller's
   * `signal` bounds those.
   */
  budgetMs: number;
  /** The setting that holds `budgetMs`, named in the remedy, e.g. "SUMMARIZER_TEXT_BUDGET_MS". */
  budgetSetting?: string;
  /** Aborting it stops the job (terminating its worker) or takes it out of the queue. */
  signal?: AbortSignal | undefined;
  /** Buffers of `input` to move to the worker instead of copying. */
  transfer?: readonly Transferable[];
}

const budgetsExceeded = counter(
  "contexthub_text_budget_exceeded_total",
  "Jobs on caller text stopped because they ran longer than their time budget, by pool and stage.",
  ["pool", "stage"],
);

export interface PooledWorker {
  worker: Worker;
  /** Settles once the worker can take jobs, or failed to start. */
  ready: Promise<void>;
  started: boolean;
  /** The last uncaught error of the worker, for the message of a call it ends. */
  lastError: Error | undefined;
}

/** What a job's end does to its worker and what its errors say: the pool's side of a job. */
export interface JobContext {
  /** The pool's name, in metrics and messages. */
  pool: string;
  /** The job's id, unique in its pool, that the worker's answer carries back. */
  id: number;
  /** Whether the pool has closed (a worker's end is then the pool's doing). */
  isClosed(): boolean;
  /** The job is over: a worker to `keep` goes to the next call, any other is terminated and replaced. */
  done(pooled: PooledWorker, keep: boolean): void;
}

/** The error of a call its caller gave up (the signal's own ContextHubError, if it aborted with one). */
export const abortError = (stage: string, signal: AbortSignal) =>
  isContextHubError(signal.reason)
    ? signal.reason
    : new ContextHubError(
        "DEADLINE_EXCEEDED",
        `${stage}: stopped because the caller's deadline passed or it cancelled`,
        {
          details: { stage },
        },
      );

/** Waits for a fresh worker's start-up, which only the caller's signal bounds. */
export function whenReady(pooled: PooledWorker, stage: string, signal: AbortSignal | undefined): Promise<void> {
  if (pooled.started) return Promise.resolve();
  if (signal === undefined) return pooled.ready;
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(abortError(stage, signal));
    signal.addEventListener("abort", onAbort, { once: true });
    pooled.ready.then(
      () => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

/** Runs `task` on `input` on a worker that has started, under the job's budget and signal. */
export function runJob<T>(
  pooled: PooledWorker,
  task: string,
  input: unknown,
  job: WorkerJobOptions,
  context: JobContext,
): Promise<T> {
  const { pool: name, id } = context;
  return new Promise<T>((resolve, reject) => {
    const { worker } = pooled;
    const { stage, signal } = job;
    const settle = (keep: boolean, outcome: () => void) => {
      clearTimeout(timer);
      worker.off("message", onMessage);
      worker.off("exit", onExit);
      signal?.removeEventListener("abort", onAbort);
      context.done(pooled, keep);
      outcome();
    };
    const onMessage = (message: FromWorker) => {
      if (message.type === "result" && message.id === id) settle(true, () => resolve(message.value as T));
      else if (message.type === "error" && message.id === id)
        settle(true, () => reject(fromWorkerError(message.error, stage)));
    };
    const onExit = (code: number) => {
      const cause = context.isClosed()
        ? `the ${name} worker pool closed`
        : (pooled.lastError?.message ?? `exit code ${code}`);
      settle(false, () =>
        reject(
          new ContextHubError("INTERNAL", `${stage}: its worker stopped before it finished (${cause})`, {
            details: { stage },
          }),
        ),
      );
    };
    const onAbort = () => settle(false, () => reject(abortError(stage, signal!)));
    const onBudget = () => {
      budgetsExceeded.inc({ pool: name, stage });
      const setting = job.budgetSetting === undefined ? "" : ` (${job.budgetSetting})`;
      settle(false, () =>
        reject(
          new ContextHubError(
            "TEXT_BUDGET_EXCEEDED",
            `${stage}: the text took longer than its ${job.budgetMs} ms budget, so the work was stopped and nothing was changed`,
            {
              remedy: `split the text into smaller entries, or ask an operator to raise the budget${setting}`,
              details: { stage, budget_ms: job.budgetMs },
            },
          ),
        ),
      );
    };
    worker.on("message", onMessage);
    worker.once("exit", onExit);
    signal?.addEventListener("abort", onAbort, { once: true });
    const timer = setTimeout(onBudget, job.budgetMs);
    worker.postMessage(
      { id, task, input } satisfies ToWorker,
      job.transfer === undefined ? undefined : [...job.transfer],
    );
  });
}
