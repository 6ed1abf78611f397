import { test } from "node:test";
import assert from "node:assert/strict";
import { createFakeClock } from "./fake-clock.js";
import { waitFor } from "./wait-for.js";

test("waitFor resolves with the condition's first truthy value, async or not", async () => {
  let looks = 0;
  assert.equal(
    await waitFor(() => (++looks >= 3 ? "ready" : undefined), { what: "three looks", intervalMs: 1 }),
    "ready",
  );
  assert.equal(looks, 3);
  assert.equal(await waitFor(async () => 42, { what: "an answer" }), 42);
});

test("waitFor fails naming what it waited for and the condition's last error", async () => {
  await assert.rejects(
    waitFor(() => false, { what: "the moon to turn blue", timeoutMs: 20, intervalMs: 5 }),
    /^Error: waited 20 ms for the moon to turn blue, and it did not happen$/,
  );
  await assert.rejects(
    waitFor(
      () => {
        throw new Error("connection refused");
      },
      { what: "the server", timeoutMs: 20, intervalMs: 5 },
    ),
    /waited 20 ms for the server, and it did not happen \(last error: connection refused\)$/,
  );
});

test("a fake clock's sleep passes fake time at once, records it, and honours an aborted signal", async () => {
  const clock = createFakeClock(1_000);
  await clock.sleep(250);
  clock.advance(50);
  assert.equal(clock.now(), 1_300);
  assert.deepEqual(clock.sleeps, [250]);
  const aborted = AbortSignal.abort(new Error("cancelled"));
  await assert.rejects(clock.sleep(10, aborted), /cancelled/);
  assert.deepEqual(clock.sleeps, [250], "an aborted wait is not recorded");
});
