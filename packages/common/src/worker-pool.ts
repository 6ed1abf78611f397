/**
 * The pool of worker threads for CPU-heavy work on caller text: workers
 * started on demand, reused, replaced when terminated, and the calls that
 * wait for one. One job on its worker is worker-job.ts; the messages and the
 * worker side, worker-protocol.ts.
 */
import { Worker } from "node:worker_threads";
import { ContextHubError } from "./errors.js";
import { abortError, runJob, whenReady, type PooledWorker, type WorkerJobOptions } from "./worker-job.js";
import { fromWorkerError, nicenessFlag, type FromWorker } from "./worker-protocol.js";

/**
 * Texts up to this many characters in all (a search query, a short note)
 * may be worked on by the thread that serves calls: at the linear cost the
 * text functions have, that takes well under a millisecond, less than
 * handing them to a worker and back. Anything longer goes to a worker.
 */
export const inlineTextChars = 4096;

/** Whether `texts` are short enough to work on without a worker (see `inlineTextChars`). */
export function isInlineText(texts: readonly string[]): boolean {
  let total = 0;
  for (const text of texts) {
    total += text.length;
    if (total > inlineTextChars) return false;
  }
  return true;
}

/** How a pool's worker module is started (see `serveWorkerTasks`, which that module calls). */
export interface WorkerPoolOptions {
  /** Names the pool in logs and metrics, e.g. "summarizer". */
  name: string;
  /** The compiled worker module, e.g. `new URL("./summary-worker.js", import.meta.url)`. */
  script: URL;
  /** Most workers running at once; further calls wait for one. */
  maxWorkers: number;
  /** Given to every worker as `workerData` (settings its start-up needs, such as a cache directory). */
  workerData?: unknown;
  /** Heap limit of one worker, in MiB: a text that needs more fails its call instead of the process. */
  maxOldGenerationSizeMb?: number;
  /**
   * How many steps of nice value (0–19) each worker thread runs below the
   * thread that starts it (default `workerNiceness`). Work on caller text
   * then yields the CPU to the threads that answer calls (on Linux the value
   * is per thread), so a reader waits less beside a megabyte write; within a
   * budget's time a worker still gets its share.
   */
  niceness?: number;
  /**
   * Start a replacement as soon as a worker is terminated, so that the next
   * call does not pay the start-up (default true). Idle workers never keep
   * the process alive.
   */
  keepWarm?: boolean;
}

/** Counts of a pool, for tests and health pages. */
export interface WorkerPoolStats {
  /** Workers alive, idle or busy. */
  workers: number;
  /** Calls waiting for a worker. */
  waiting: number;
  /** Workers terminated so far because a job ran over its budget, was abandoned, or crashed. */
  terminated: number;
}

/**
 * A pool of worker threads for CPU-heavy work on caller text. Each call runs
 * on a worker of its own under a time budget that really interrupts: a job
 * over budget gets its worker terminated and replaced, so the threads that
 * serve other callers never wait on a slow text.
 */
export interface WorkerPool {
  /**
   * Runs `task` (a name the worker module registered) on `input` in a worker.
   *
   * @throws ContextHubError TEXT_BUDGET_EXCEEDED when the job runs longer than `budgetMs`;
   *   DEADLINE_EXCEEDED when `signal` aborts first; the task's own ContextHubError when it throws one;
   *   INTERNAL when the worker dies or the task throws anything else.
   */
  run<T>(task: string, input: unknown, options: WorkerJobOptions): Promise<T>;
  /**
   * Starts one worker (unless one is running) and resolves once it can take jobs, or once the pool closes first;
   * rejects when its start-up fails.
   */
  warm(): Promise<void>;
  /** Whether a worker has finished its start-up and none has failed it since (readiness). */
  isWarm(): boolean;
  stats(): WorkerPoolStats;
  /** Terminates every worker; waiting and running calls fail. */
  close(): Promise<void>;
}

interface Waiter {
  take(pooled: PooledWorker): void;
  fail(error: Error): void;
}

/**
 * The steps of nice value pool workers run below their process's threads
 * unless their pool says otherwise: 5, a CPU weight of about a third of the
 * serving threads' (the kernel weighs nice 0 at 1024 and nice 5 at 335), so a
 * busy worker slows a reader's thread beside it a little, and is still far
 * from starved when readers keep both cores busy.
 */
export const workerNiceness = 5;

/** Starts a worker of the pool; its `ready` settles once it can take jobs, or failed to start. */
function startWorker(options: WorkerPoolOptions): PooledWorker {
  const { name } = options;
  const worker = new Worker(options.script, {
    workerData: options.workerData,
    argv: [`${nicenessFlag}${options.niceness ?? workerNiceness}`],
    ...(options.maxOldGenerationSizeMb === undefined
      ? {}
      : { resourceLimits: { maxOldGenerationSizeMb: options.maxOldGenerationSizeMb } }),
  });
  const pooled: PooledWorker = { worker, ready: Promise.resolve(), started: false, lastError: undefined };
  // An uncaught error ends the worker; without a listener it would end this process too.
  worker.on("error", (error) => (pooled.lastError = error));
  pooled.ready = new Promise<void>((resolve, reject) => {
    const onMessage = (message: FromWorker) => {
      if (message.type === "ready") {
        done();
        pooled.started = true;
        resolve();
      } else if (message.type === "start_failed") {
        done();
        reject(fromWorkerError(message.error, `starting a ${name} worker`));
        void worker.terminate();
      }
    };
    const onExit = (code: number) => {
      done();
      reject(
        new ContextHubError(
          "INTERNAL",
          `a ${name} worker stopped (exit code ${code}) before it was ready${pooled.lastError === undefined ? "" : `: ${pooled.lastError.message}`}`,
        ),
      );
    };
    const done = () => {
      worker.off("message", onMessage);
      worker.off("exit", onExit);
    };
    worker.on("message", onMessage);
    worker.once("exit", onExit);
  });
  // Whoever takes the worker awaits `ready`; a worker started ahead of need may fail with nobody listening yet.
  pooled.ready.catch(() => undefined);
  return pooled;
}

/** Queues a call until a worker is released to it; the caller's signal takes it out of the queue. */
function waitForWorker(waiting: Waiter[], stage: string, signal: AbortSignal | undefined): Promise<PooledWorker> {
  return new Promise<PooledWorker>((resolve, reject) => {
    const onAbort = () => {
      const at = waiting.indexOf(waiter);
      if (at >= 0) waiting.splice(at, 1);
      reject(abortError(stage, signal!));
    };
    const waiter: Waiter = {
      take(taken) {
        signal?.removeEventListener("abort", onAbort);
        taken.worker.ref();
        resolve(taken);
      },
      fail(error) {
        signal?.removeEventListener("abort", onAbort);
        reject(error);
      },
    };
    waiting.push(waiter);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
/** A pool's workers and the calls waiting for one: which are alive and idle, and how one is handed on or replaced. */
interface WorkerSlots {
  /** Workers alive, idle or busy. */
  readonly all: Set<PooledWorker>;
  /** Workers waiting for a job. */
  readonly idle: PooledWorker[];
  /** Calls waiting for a worker, first come first served. */
  readonly waiting: Waiter[];
  isClosed(): boolean;
  /** From now on, no worker is replaced. */
  markClosed(): void;
  /** Workers terminated so far because their job had to stop. */
  terminated(): number;
  /** Starts a worker and counts it among the pool's until it exits. */
  spawn(): PooledWorker;
  /** Idles a worker without keeping the process alive. */
  park(pooled: PooledWorker): void;
  /** Hands a worker to the next waiting call, or parks it. */
  release(pooled: PooledWorker): void;
  /** Terminates a worker whose job must stop, and puts a fresh one in its place. */
  discard(pooled: PooledWorker): void;
  /** An idle worker, a new one while under `maxWorkers`, else the next one released. */
  acquire(stage: string, signal: AbortSignal | undefined): Promise<PooledWorker>;
}

/** The worker slots of a pool started with `options`. */
function createWorkerSlots(options: WorkerPoolOptions): WorkerSlots {
  const { maxWorkers } = options;
  const keepWarm = options.keepWarm ?? true;
  const idle: PooledWorker[] = [];
  const all = new Set<PooledWorker>();
  const waiting: Waiter[] = [];
  let closed = false;
  let terminated = 0;

  const forget = (pooled: PooledWorker) => {
    all.delete(pooled);
    const at = idle.indexOf(pooled);
    if (at >= 0) idle.splice(at, 1);
  };

  const spawn = (): PooledWorker => {
    const pooled = startWorker(options);
    pooled.worker.once("exit", () => forget(pooled));
    all.add(pooled);
    return pooled;
  };

  const park = (pooled: PooledWorker) => {
    pooled.worker.unref();
    idle.push(pooled);
  };

  /** Hands a worker to the next waiting call, or parks it. */
  const release = (pooled: PooledWorker) => {
    const next = waiting.shift();
    if (next !== undefined) next.take(pooled);
    else park(pooled);
  };

  /** Terminates a worker whose job must stop, and puts a fresh one in its place. */
  const discard = (pooled: PooledWorker) => {
    terminated++;
    forget(pooled);
    void pooled.worker.terminate();
    if (closed) return;
    if (waiting.length > 0) release(spawn());
    else if (keepWarm && all.size < maxWorkers) park(spawn());
  };

  const acquire = (stage: string, signal: AbortSignal | undefined): Promise<PooledWorker> => {
    const pooled = idle.pop() ?? (all.size < maxWorkers ? spawn() : undefined);
    if (pooled !== undefined) {
      pooled.worker.ref();
      return Promise.resolve(pooled);
    }
    return waitForWorker(waiting, stage, signal);
  };

  return {
    all,
    idle,
    waiting,
    isClosed: () => closed,
    markClosed: () => {
      closed = true;
    },
    terminated: () => terminated,
    spawn,
    park,
    release,
    discard,
    acquire,
  };
}

/**
 * A worker-thread pool (see `WorkerPool`). Workers start on demand up to
 * `maxWorkers`, are reused between calls, and are replaced when terminated.
 */
export function createWorkerPool(options: WorkerPoolOptions): WorkerPool {
  const { name } = options;
  const slots = createWorkerSlots(options);
  const { all, idle, waiting, spawn, park, release, discard } = slots;
  let nextId = 1;

  const closedError = () => new ContextHubError("INTERNAL", `the ${name} worker pool is closed`);

  const execute = <T>(pooled: PooledWorker, task: string, input: unknown, job: WorkerJobOptions): Promise<T> =>
    runJob<T>(pooled, task, input, job, {
      pool: name,
      id: nextId++,
      isClosed: () => slots.isClosed(),
      done: (worker, keep) => (keep ? release(worker) : discard(worker)),
    });

  return {
    async run<T>(task: string, input: unknown, job: WorkerJobOptions): Promise<T> {
      if (slots.isClosed()) throw closedError();
      const isAborted = () => job.signal?.aborted === true;
      if (isAborted()) throw abortError(job.stage, job.signal!);
      const pooled = await slots.acquire(job.stage, job.signal);
      try {
        await whenReady(pooled, job.stage, job.signal);
      } catch (error) {
        discard(pooled);
        throw slots.isClosed() ? closedError() : error;
      }
      // The call may have been given up while its worker started.
      if (isAborted()) {
        release(pooled);
        throw abortError(job.stage, job.signal!);
      }
      return execute<T>(pooled, task, input, job);
    },

    async warm() {
      if (slots.isClosed()) throw closedError();
      let pooled = [...all].find((candidate) => candidate.started) ?? [...all][0];
      if (pooled === undefined) {
        pooled = spawn();
        park(pooled);
      }
      // Someone waits for this worker: it keeps the process alive until it is ready, then idles as any other.
      pooled.worker.ref();
      try {
        await pooled.ready;
      } catch (error) {
        // Closing the pool stops a worker still starting: that ends the warm-up, it is not a failed start.
        if (!slots.isClosed()) throw error;
      } finally {
        if (idle.includes(pooled)) pooled.worker.unref();
      }
    },

    isWarm: () => [...all].some((pooled) => pooled.started),

    stats: () => ({ workers: all.size, waiting: waiting.length, terminated: slots.terminated() }),

    async close() {
      slots.markClosed();
      for (const waiter of waiting.splice(0)) waiter.fail(closedError());
      const workers = [...all];
      all.clear();
      idle.length = 0;
      await Promise.all(workers.map((pooled) => pooled.worker.terminate()));
    },
  };
}
