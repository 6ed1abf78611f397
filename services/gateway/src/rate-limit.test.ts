import { test } from "node:test";
import assert from "node:assert/strict";
import { createRateLimiter } from "./rate-limit.js";

/** A limiter on a clock the test moves by hand. */
function limiterAt(budgets: Parameters<typeof createRateLimiter>[0], maxBuckets?: number) {
  let now = 0;
  const limiter = createRateLimiter(budgets, () => now, maxBuckets);
  return { limiter, advance: (ms: number) => (now += ms) };
}

test("a burst is allowed, the next call is refused with the time until a token refills", () => {
  const { limiter, advance } = limiterAt({ read: { perMinute: 60, burst: 3 }, write: { perMinute: 6, burst: 2 } });
  for (let call = 0; call < 3; call++) assert.deepEqual(limiter.take("alice", "read"), { ok: true });
  const refused = limiter.take("alice", "read");
  assert.equal(refused.ok, false);
  assert.equal(!refused.ok && refused.retryAfterSeconds, 1, "60 per minute refills one token a second");
  advance(999);
  assert.equal(limiter.take("alice", "read").ok, false, "not before the token is whole");
  advance(1);
  assert.equal(limiter.take("alice", "read").ok, true);
});

test("read and write budgets and principals are counted apart", () => {
  const { limiter } = limiterAt({ read: { perMinute: 60, burst: 1 }, write: { perMinute: 6, burst: 1 } });
  assert.equal(limiter.take("alice", "write").ok, true);
  const refused = limiter.take("alice", "write");
  assert.equal(!refused.ok && refused.retryAfterSeconds, 10, "6 per minute is one token every 10 s");
  assert.equal(limiter.take("alice", "read").ok, true, "writes do not spend the read budget");
  assert.equal(limiter.take("bob", "write").ok, true, "another principal has a bucket of its own");
});

test("a budget of 0 per minute is unlimited", () => {
  const { limiter } = limiterAt({ read: { perMinute: 0, burst: 1 }, write: { perMinute: 1, burst: 1 } });
  for (let call = 0; call < 1_000; call++) assert.equal(limiter.take("alice", "read").ok, true);
});

test("a bucket never holds more than its burst, however long it idles", () => {
  const { limiter, advance } = limiterAt({ read: { perMinute: 60, burst: 2 }, write: { perMinute: 60, burst: 2 } });
  limiter.take("alice", "read");
  advance(3_600_000);
  assert.equal(limiter.take("alice", "read").ok, true);
  assert.equal(limiter.take("alice", "read").ok, true);
  assert.equal(limiter.take("alice", "read").ok, false);
});

test("when the table is full, refilled buckets make room before a limited principal is forgotten", () => {
  const { limiter, advance } = limiterAt({ read: { perMinute: 1, burst: 1 }, write: { perMinute: 60, burst: 1 } }, 3);
  assert.equal(limiter.take("mallory", "read").ok, true);
  limiter.take("a", "write");
  limiter.take("b", "write");
  advance(2_000);
  // a's and b's buckets are full again (one token a second); mallory's is still empty.
  assert.equal(limiter.take("c", "write").ok, true);
  assert.equal(limiter.take("mallory", "read").ok, false, "mallory's bucket survived; a's and b's were dropped");
});

test("takeAll takes from every budget or from none", () => {
  const { limiter } = limiterAt({ read: { perMinute: 60, burst: 5 }, write: { perMinute: 60, burst: 2 } });
  assert.equal(limiter.takeAll("alice", { read: 3, write: 2 }).ok, true);
  const refused = limiter.takeAll("alice", { read: 1, write: 1 });
  assert.equal(!refused.ok && refused.name, "write");
  assert.equal(limiter.takeAll("alice", { read: 2 }).ok, true, "the refused request took no read token");
  assert.equal(limiter.takeAll("alice", { read: 1 }).ok, false);
});

test("a cost above the burst is refused and says how many it wanted", () => {
  const { limiter } = limiterAt({ read: { perMinute: 60, burst: 3 }, write: { perMinute: 60, burst: 3 } });
  const refused = limiter.takeAll("alice", { read: 4 });
  assert.equal(!refused.ok && refused.wanted, 4);
  assert.equal(limiter.takeAll("alice", { read: 3 }).ok, true, "nothing was taken by the refusal");
});

test("refund gives back one token, never beyond the burst", () => {
  const { limiter } = limiterAt({ read: { perMinute: 1, burst: 2 }, write: { perMinute: 1, burst: 1 } });
  assert.equal(limiter.take("alice", "read").ok, true);
  assert.equal(limiter.take("alice", "read").ok, true);
  assert.equal(limiter.take("alice", "read").ok, false);
  limiter.refund("alice", "read");
  assert.equal(limiter.take("alice", "read").ok, true);
  limiter.refund("alice", "read");
  limiter.refund("alice", "read");
  limiter.refund("alice", "read");
  assert.equal(limiter.take("alice", "read").ok, true);
  assert.equal(limiter.take("alice", "read").ok, true);
  assert.equal(limiter.take("alice", "read").ok, false, "refunds stop at the burst");
});

test("a flood of new keys costs the same per key however large the table is", () => {
  // Each key's bucket is left empty, so none can be dropped as refilled: past the bound, every new key needs room.
  // The work is counted, not timed: making room reads a bucket's budget once per bucket it looks at.
  const readsPerKey = (maxBuckets: number) => {
    let reads = 0;
    const rule = { perMinute: 1, burst: 1 };
    const budgets = new Proxy(
      { read: rule, write: rule },
      {
        get: (target, name: string | symbol) => {
          reads++;
          return target[name as "read" | "write"];
        },
      },
    );
    const { limiter } = limiterAt(budgets, maxBuckets);
    const keys = maxBuckets * 4;
    for (let index = 0; index < keys; index++) limiter.take(`guess-${index}`, "read");
    return reads / keys;
  };
  const small = readsPerKey(1_000);
  const large = readsPerKey(10_000);
  // Scanning the table for every new key would make each key in the larger table about ten times dearer.
  assert.ok(large < small * 1.5, `a table 10x larger made each new key ${(large / small).toFixed(1)}x dearer`);
  assert.ok(small < 50, `${small.toFixed(1)} budget reads per new key`);
});
