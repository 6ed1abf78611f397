import { test } from "node:test";
import assert from "node:assert/strict";
import { createIdempotencyExpirySweeper, expiryBatchesPerSweep, expiryBatchSize } from "./idempotency-expiry.js";

const quiet = { warn: () => undefined, debug: () => undefined };

/** A table of `count` records made at `createdAt` (ms) each, behind the sweeper's delete. */
function fakeTable(createdAt: number[]) {
  const rows = [...createdAt].sort((a, b) => a - b);
  const calls: { notBefore: number; limit: number }[] = [];
  return {
    calls,
    remaining: () => rows.length,
    async deleteExpired(notBefore: Date, limit: number) {
      calls.push({ notBefore: notBefore.getTime(), limit });
      let deleted = 0;
      while (deleted < limit && rows.length > 0 && rows[0]! < notBefore.getTime()) {
        rows.shift();
        deleted++;
      }
      return deleted;
    },
  };
}

test("a sweep deletes what is past the window, a bounded batch at a time, and stops at a short batch", async () => {
  const now = 10_000_000;
  const table = fakeTable([...Array.from({ length: 1_234 }, () => 100), ...Array.from({ length: 7 }, () => now - 10)]);
  const sweeper = createIdempotencyExpirySweeper({
    expiry: { ttlMs: 1_000, now: () => new Date(now) },
    deleteExpired: table.deleteExpired,
    logger: quiet,
    intervalMs: 0,
  });
  assert.equal(await sweeper.sweep(), 1_234);
  assert.deepEqual(
    table.calls.map((call) => call.limit),
    [expiryBatchSize, expiryBatchSize, expiryBatchSize],
  );
  assert.ok(table.calls.every((call) => call.notBefore === now - 1_000));
  assert.equal(table.remaining(), 7, "records inside the window stay");
  await sweeper.close();
});

test("a backlog larger than one sweep drains over the next sweeps, never more than the cap at once", async () => {
  const backlog = expiryBatchSize * expiryBatchesPerSweep * 2 + 3;
  const table = fakeTable(Array.from({ length: backlog }, () => 0));
  const sweeper = createIdempotencyExpirySweeper({
    expiry: { ttlMs: 1, now: () => new Date(1_000) },
    deleteExpired: table.deleteExpired,
    logger: quiet,
    intervalMs: 0,
  });
  assert.equal(await sweeper.sweep(), expiryBatchSize * expiryBatchesPerSweep);
  assert.equal(await sweeper.sweep(), expiryBatchSize * expiryBatchesPerSweep);
  assert.equal(await sweeper.sweep(), 3);
  assert.equal(table.remaining(), 0);
  await sweeper.close();
});

test("the window follows the clock: a record expires once the clock passes its window", async () => {
  let now = 5_000;
  const table = fakeTable([4_000]);
  const sweeper = createIdempotencyExpirySweeper({
    expiry: { ttlMs: 1_000, now: () => new Date(now) },
    deleteExpired: table.deleteExpired,
    logger: quiet,
    intervalMs: 0,
  });
  assert.equal(await sweeper.sweep(), 0, "made exactly one window ago: still inside it");
  now = 5_001;
  assert.equal(await sweeper.sweep(), 1);
  await sweeper.close();
});

test("a background sweep that fails is logged, and the next sweep runs", async () => {
  let fail = true;
  let warned!: (message: string) => void;
  const warning = new Promise<string>((resolve) => (warned = resolve));
  const sweeper = createIdempotencyExpirySweeper({
    expiry: { ttlMs: 1, now: () => new Date(10) },
    deleteExpired: async () => {
      if (fail) throw new Error("connection lost");
      return 0;
    },
    logger: { warn: ((_: object, message: string) => warned(message)) as never, debug: () => undefined },
    // Long enough never to fire here: the sweep at start is the one that fails.
    intervalMs: 3_600_000,
  });
  assert.match(await warning, /deleting expired idempotency keys failed/);
  fail = false;
  assert.equal(await sweeper.sweep(), 0);
  await sweeper.close();
});
