/**
 * The messages between a worker pool and its worker threads, and the worker
 * side that answers them (`serveWorkerTasks`): jobs in, results and errors
 * out, a ContextHubError carried across the thread boundary with its code,
 * remedy and details.
 */
import { getPriority, setPriority } from "node:os";
import { parentPort } from "node:worker_threads";
import { ContextHubError, isContextHubError, isErrorCode } from "./errors.js";

/** A task a worker module serves: called with the job's input, its result is copied back to the caller. */
export type WorkerTask = (input: never) => unknown;

/** An error as it crosses the thread boundary. */
interface WorkerError {
  message: string;
  code?: string;
  remedy?: string;
  details?: Record<string, unknown>;
}

export type ToWorker = { id: number; task: string; input: unknown };
export type FromWorker =
  | { type: "ready" }
  | { type: "start_failed"; error: WorkerError }
  | { type: "result"; id: number; value: unknown }
  | { type: "error"; id: number; error: WorkerError };

function toWorkerError(error: unknown): WorkerError {
  if (isContextHubError(error))
    return {
      message: error.message,
      code: error.code,
      ...(error.remedy === undefined ? {} : { remedy: error.remedy }),
      details: error.details,
    };
  return { message: error instanceof Error ? error.message : String(error) };
}

export function fromWorkerError(error: WorkerError, stage: string): ContextHubError {
  if (error.code !== undefined && isErrorCode(error.code)) {
    return new ContextHubError(error.code, error.message, {
      ...(error.remedy === undefined ? {} : { remedy: error.remedy }),
      ...(error.details === undefined ? {} : { details: error.details }),
    });
  }
  return new ContextHubError("INTERNAL", `${stage} failed in its worker: ${error.message}`, { details: { stage } });
}

/** The argument a pool starts its workers with to give the steps of nice value they run below it (`niceness`). */
export const nicenessFlag = "--context-hub-nice=";

/**
 * Lowers this worker thread's priority by the steps its pool gave, below the
 * thread that started it (whose nice value a new thread inherits). On Linux
 * a nice value belongs to the thread, so the threads answering calls keep
 * theirs; where the platform refuses, the worker runs at its process's.
 */
function applyNiceness(): void {
  const flag = process.argv.find((argument) => argument.startsWith(nicenessFlag));
  const steps = flag === undefined ? 0 : Number(flag.slice(nicenessFlag.length));
  if (!Number.isInteger(steps) || steps <= 0) return;
  try {
    setPriority(Math.min(getPriority() + steps, 19));
  } catch {
    // Not permitted or not supported here: the work runs at the process's priority.
  }
}

/**
 * The worker side of a pool: registers the tasks this worker module serves,
 * runs `start` (loading models, say) before the first job, and answers jobs
 * one at a time, at the pool's nice value. Call it once, at the top level of
 * the worker module.
 */
export function serveWorkerTasks<T extends { [K in keyof T]: WorkerTask }>(tasks: T, start?: () => unknown): void {
  const port = parentPort;
  if (port === null) throw new Error("serveWorkerTasks runs in a worker thread started by createWorkerPool");
  applyNiceness();
  port.on("message", (job: ToWorker) => {
    const handler = (tasks as Record<string, WorkerTask | undefined>)[job.task];
    Promise.resolve()
      .then(() => {
        if (handler === undefined) throw new Error(`this worker has no task "${job.task}"`);
        return (handler as (input: unknown) => unknown)(job.input);
      })
      .then(
        (value) => port.postMessage({ type: "result", id: job.id, value } satisfies FromWorker),
        (error: unknown) =>
          port.postMessage({ type: "error", id: job.id, error: toWorkerError(error) } satisfies FromWorker),
      );
  });
  Promise.resolve()
    .then(start)
    .then(
      () => port.postMessage({ type: "ready" } satisfies FromWorker),
      (error: unknown) => port.postMessage({ type: "start_failed", error: toWorkerError(error) } satisfies FromWorker),
    );
}
