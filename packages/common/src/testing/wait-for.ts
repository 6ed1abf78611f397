import { setTimeout as pause } from "node:timers/promises";

/** How long `waitFor` waits for its condition, and what it names when the condition never holds. */
export interface WaitForOptions {
  /** What is awaited, in words; the failure names it. */
  what: string;
  /** Give up after this long; default 10 s (generous: a shared machine can be slow, a test that passes waits less). */
  timeoutMs?: number;
  /** How often to look again; default 10 ms. */
  intervalMs?: number;
}

/**
 * Resolves with the first truthy value `condition` returns, looking again every `intervalMs`; rejects naming
 * `what` (and the last error the condition threw, if any) once `timeoutMs` has passed. For state another process
 * or a watcher changes, where there is no event to await; code in the same process is better awaited directly.
 */
export async function waitFor<T>(condition: () => T | Promise<T>, options: WaitForOptions): Promise<NonNullable<T>> {
  const { what, timeoutMs = 10_000, intervalMs = 10 } = options;
  const deadline = performance.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await condition();
      if (value !== undefined && value !== null && value !== false) return value as NonNullable<T>;
      lastError = undefined;
    } catch (error) {
      lastError = error;
    }
    if (performance.now() >= deadline) {
      const last =
        lastError === undefined
          ? ""
          : ` (last error: ${lastError instanceof Error ? lastError.message : String(lastError)})`;
      throw new Error(`waited ${timeoutMs} ms for ${what}, and it did not happen${last}`);
    }
    await pause(intervalMs);
  }
}
