/** A clock a test moves by hand, with a `sleep` that passes fake time at once instead of waiting. */
export interface FakeClock {
  /** The fake time in milliseconds; starts at `start`. */
  now(): number;
  /** Records the wait, moves the clock on by `ms` and resolves at once; rejects if `signal` is (or was) aborted. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** Moves the clock on by `ms`. */
  advance(ms: number): void;
  /** Every wait asked of `sleep`, in order. */
  readonly sleeps: number[];
}

/** Creates a fake clock at `start` ms (default an arbitrary fixed instant, so no test leans on the real date). */
export function createFakeClock(start = 1_700_000_000_000): FakeClock {
  let at = start;
  const sleeps: number[] = [];
  return {
    now: () => at,
    advance(ms) {
      at += ms;
    },
    sleeps,
    async sleep(ms, signal) {
      if (signal?.aborted) throw signal.reason ?? new Error("aborted");
      sleeps.push(ms);
      at += ms;
      await Promise.resolve();
      if (signal?.aborted) throw signal.reason ?? new Error("aborted");
    },
  };
}
