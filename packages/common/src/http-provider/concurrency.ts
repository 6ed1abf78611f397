import { createChildAbortController } from "../abort-signals.js";
import { ContextHubError } from "../errors.js";

/** Cuts `items` into consecutive batches of at most `size` (the last may be shorter). */
export function splitIntoBatches<T>(items: readonly T[], size: number): T[][] {
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`batch size must be a positive integer, got ${size}`);
  const batches: T[][] = [];
  for (let start = 0; start < items.length; start += size) batches.push(items.slice(start, start + size));
  return batches;
}

/**
 * Runs `work` over every item with at most `limit` running at once and
 * returns the results in item order. On the first failure no further item
 * starts, the signal handed to running work aborts (so their HTTP requests
 * stop), and the promise rejects with that first error. An abort of `signal`
 * stops the run the same way.
 */
export async function mapWithConcurrency<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T, index: number, signal: AbortSignal) => Promise<R>,
  signal?: AbortSignal,
): Promise<R[]> {
  if (!Number.isInteger(limit) || limit < 1)
    throw new RangeError(`concurrency must be a positive integer, got ${limit}`);
  const controller = createChildAbortController(signal);
  const results = new Array<R>(items.length);
  let next = 0;
  let failure: { error: unknown } | undefined;
  const runner = async () => {
    while (failure === undefined && !controller.signal.aborted && next < items.length) {
      const index = next++;
      try {
        results[index] = await work(items[index] as T, index, controller.signal);
      } catch (error) {
        failure ??= { error };
        controller.abort(error);
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(limit, items.length) }, runner));
  } finally {
    controller.release();
  }
  if (failure !== undefined) throw failure.error;
  if (controller.signal.aborted) throw controller.signal.reason;
  return results;
}

/** Which queue a run waits in: every "high" run starts before any waiting "low" one. */
export type LimiterPriority = "high" | "low";

export interface ConcurrencyLimiter {
  /**
   * Runs `work` once fewer than the limit's runs are active, and settles as
   * it does. Waiting runs start by priority, then in arrival order. An abort
   * of `signal` while waiting rejects with DEADLINE_EXCEEDED and frees the
   * place in the queue; once started, `work` watches its own signal.
   */
  run<T>(
    work: () => Promise<T>,
    options?: { priority?: LimiterPriority; signal?: AbortSignal | undefined },
  ): Promise<T>;
  /** Runs active now. */
  readonly active: number;
  /** Runs waiting for a place. */
  readonly waiting: number;
}

/**
 * A bound on concurrent work shared by every caller that holds it, e.g. all
 * requests a worker process sends to its provider, however many calls it
 * serves at once. `lowLimit` bounds the "low" runs active at once (default:
 * the whole limit), so that they always leave places for "high" ones.
 */
export function createConcurrencyLimiter(limit: number, options: { lowLimit?: number } = {}): ConcurrencyLimiter {
  if (!Number.isInteger(limit) || limit < 1)
    throw new RangeError(`concurrency must be a positive integer, got ${limit}`);
  const lowLimit = options.lowLimit ?? limit;
  if (!Number.isInteger(lowLimit) || lowLimit < 1 || lowLimit > limit)
    throw new RangeError(`the low-priority limit must be an integer from 1 to ${limit}, got ${lowLimit}`);
  let active = 0;
  let activeLow = 0;
  const queues: Record<LimiterPriority, (() => void)[]> = { high: [], low: [] };
  const startWaiting = () => {
    while (active < limit) {
      const start = queues.high.shift() ?? (activeLow < lowLimit ? queues.low.shift() : undefined);
      if (start === undefined) return;
      start();
    }
  };
  return {
    get active() {
      return active;
    },
    get waiting() {
      return queues.high.length + queues.low.length;
    },
    run(work, options = {}) {
      const { priority = "high", signal } = options;
      const cancelled = () =>
        new ContextHubError(
          "DEADLINE_EXCEEDED",
          `stopped while waiting for a free provider request (at most ${limit} at once): the caller's deadline passed or it cancelled`,
          {
            remedy: "retry with a longer deadline",
          },
        );
      return new Promise((resolve, reject) => {
        if (signal?.aborted === true) {
          reject(cancelled());
          return;
        }
        const queue = queues[priority];
        const start = () => {
          active++;
          if (priority === "low") activeLow++;
          signal?.removeEventListener("abort", onAbort);
          void Promise.resolve()
            .then(work)
            .then(resolve, reject)
            .finally(() => {
              active--;
              if (priority === "low") activeLow--;
              startWaiting();
            });
        };
        const onAbort = () => {
          const place = queue.indexOf(start);
          if (place === -1) return;
          queue.splice(place, 1);
          reject(cancelled());
        };
        signal?.addEventListener("abort", onAbort, { once: true });
        queue.push(start);
        startWaiting();
      });
    },
  };
}
