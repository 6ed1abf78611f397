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
export async function mapWithConcurrency<T, R>(items: readonly T[], limit: number, work: (item: T, index: number, signal: AbortSignal) => Promise<R>, signal?: AbortSignal): Promise<R[]> {
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`concurrency must be a positive integer, got ${limit}`);
  const controller = new AbortController();
  const onAbort = () => controller.abort(signal?.reason);
  if (signal?.aborted) onAbort();
  else signal?.addEventListener("abort", onAbort, { once: true });
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
    signal?.removeEventListener("abort", onAbort);
  }
  if (failure !== undefined) throw failure.error;
  if (controller.signal.aborted) throw controller.signal.reason;
  return results;
}
