/**
 * Deletes expired idempotency records in the background, in bounded batches,
 * so the table holds about one window's worth of keys however long the store
 * runs. Expiry itself does not wait for this: a record past its window is
 * ignored by every lookup (idempotency.ts) from the moment it expires.
 */
import type { Logger } from "@context-hub/common";
import type { IdempotencyExpiry } from "./idempotency.js";

/** Rows one statement deletes at most: short transactions that hold few row locks. */
export const expiryBatchSize = 500;
/** Batches one sweep runs at most before it yields to the next interval. */
export const expiryBatchesPerSweep = 20;
/** How often a sweep runs. */
export const expirySweepIntervalMs = 60_000;

export interface IdempotencyExpirySweeper {
  /** Deletes expired records now, at most `expiryBatchesPerSweep` batches; returns how many went. */
  sweep(): Promise<number>;
  /** Stops the periodic sweep and waits for one in flight. */
  close(): Promise<void>;
}

export interface IdempotencyExpirySweeperOptions {
  expiry: IdempotencyExpiry;
  /** Deletes at most `limit` records made before `notBefore`; returns how many it deleted. */
  deleteExpired(notBefore: Date, limit: number): Promise<number>;
  logger: Pick<Logger, "warn" | "debug">;
  /** Sweep every this many ms; 0 sweeps only when `sweep` is called (tests). */
  intervalMs?: number;
}

/**
 * Sweeps expired idempotency records once a minute (and at once when
 * started): batches of `expiryBatchSize` rows, oldest first, until a batch
 * comes back short or `expiryBatchesPerSweep` batches ran. A backlog larger
 * than one sweep (after a long stop, or a burst of keyed writes) drains over
 * the following sweeps. Replicas sweeping one database skip each other's rows.
 */
export function createIdempotencyExpirySweeper(options: IdempotencyExpirySweeperOptions): IdempotencyExpirySweeper {
  const { expiry, deleteExpired, logger } = options;
  const intervalMs = options.intervalMs ?? expirySweepIntervalMs;
  let running: Promise<number> | undefined;
  let closed = false;
  const sweep = (): Promise<number> => {
    running ??= (async () => {
      let deleted = 0;
      for (let batch = 0; batch < expiryBatchesPerSweep && !closed; batch++) {
        const notBefore = new Date(expiry.now().getTime() - expiry.ttlMs);
        const count = await deleteExpired(notBefore, expiryBatchSize);
        deleted += count;
        if (count < expiryBatchSize) break;
      }
      if (deleted > 0) logger.debug({ deleted }, "deleted expired idempotency keys");
      return deleted;
    })().finally(() => {
      running = undefined;
    });
    return running;
  };
  const background = () => {
    sweep().catch((error: unknown) =>
      logger.warn({ err: error }, "deleting expired idempotency keys failed; the next sweep tries again"),
    );
  };
  let timer: NodeJS.Timeout | undefined;
  if (intervalMs > 0) {
    timer = setInterval(background, intervalMs);
    timer.unref();
    background();
  }
  return {
    sweep,
    async close() {
      closed = true;
      clearInterval(timer);
      await running?.catch(() => undefined);
    },
  };
}
