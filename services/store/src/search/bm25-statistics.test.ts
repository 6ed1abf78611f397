import { test } from "node:test";
import assert from "node:assert/strict";
import {
  createCollectionStatisticsCache,
  createDocumentFrequencyCache,
  createKeptCounts,
  staleLifetimes,
} from "./bm25-statistics.js";

test("a tenant's statistics are reused for the lifetime, then answer once more while counted again, and never serve another tenant", async () => {
  let clock = 0;
  const cache = createCollectionStatisticsCache(10_000, () => clock);
  const counts: string[] = [];
  const count = (tenant: string, documents: number) => async () => {
    counts.push(tenant);
    return { documents, averageLength: 5 };
  };
  assert.equal((await cache.get("a", count("a", 1))).documents, 1);
  assert.equal((await cache.get("b", count("b", 2))).documents, 2, "another tenant is counted on its own");
  clock = 9_999;
  assert.equal((await cache.get("a", count("a", 3))).documents, 1, "within the lifetime: reused");
  clock = 10_000;
  assert.equal((await cache.get("a", count("a", 4))).documents, 1, "after it: the kept figure answers…");
  assert.equal((await cache.get("a", count("a", 5))).documents, 4, "…while one count replaces it for the next query");
  assert.deepEqual(counts, ["a", "b", "a"]);
  clock = 10_000 + staleLifetimes * 10_000;
  assert.equal((await cache.get("a", count("a", 6))).documents, 6, "too old to answer: the query waits for a count");
  assert.deepEqual(counts, ["a", "b", "a", "a"]);
});

test("a failed recount in the background leaves the kept figure, and the next query past the lifetime tries again", async () => {
  let clock = 0;
  const cache = createCollectionStatisticsCache(10_000, () => clock);
  assert.equal((await cache.get("a", async () => ({ documents: 1, averageLength: 1 }))).documents, 1);
  clock = 10_000;
  let failed = 0;
  const failing = async () => {
    failed++;
    throw new Error("database busy");
  };
  assert.equal((await cache.get("a", failing)).documents, 1);
  await new Promise<void>((resolve) => setImmediate(resolve));
  assert.equal((await cache.get("a", failing)).documents, 1, "still the kept figure");
  assert.equal(failed, 2, "each query after a failure starts one recount");
});

test("a lifetime of 0 counts for every query, and a failed count is not kept", async () => {
  const uncached = createCollectionStatisticsCache(0, () => 0);
  let counted = 0;
  const count = async () => ({ documents: ++counted, averageLength: 1 });
  await uncached.get("a", count);
  await uncached.get("a", count);
  assert.equal(counted, 2);
  const cache = createCollectionStatisticsCache(10_000, () => 0);
  await assert.rejects(
    cache.get("a", () => Promise.reject(new Error("database gone"))),
    /database gone/,
  );
  assert.equal((await cache.get("a", count)).documents, 3, "the next query counts again");
});

test("document frequencies are kept per view and lexeme, answer past the lifetime while listed once for a recount, and never serve another view", () => {
  let clock = 0;
  const cache = createDocumentFrequencyCache(10_000, () => clock);
  cache.keep(
    "a",
    new Map([
      ["wing", 3],
      ["lift", 0],
    ]),
  );
  assert.deepEqual(
    [...cache.known("a", ["wing", "lift", "drag"]).found],
    [
      ["wing", 3],
      ["lift", 0],
    ],
    "a count of 0 is kept too; an uncounted word is absent",
  );
  assert.equal(cache.known("b", ["wing"]).found.size, 0, "another view never reads them");
  clock = 9_999;
  assert.deepEqual(cache.known("a", ["wing"]), { found: new Map([["wing", 3]]), refresh: [] }, "within the lifetime");
  clock = 10_000;
  assert.deepEqual(
    cache.known("a", ["wing"]),
    { found: new Map([["wing", 3]]), refresh: ["wing"] },
    "after it: recount",
  );
  assert.deepEqual(cache.known("a", ["wing"]).refresh, [], "listed once while its recount runs");
  cache.keep("a", new Map([["wing", 4]]));
  assert.deepEqual(cache.known("a", ["wing"]), { found: new Map([["wing", 4]]), refresh: [] }, "the recount kept");
  clock = 10_000 + staleLifetimes * 10_000;
  assert.equal(cache.known("a", ["wing", "lift"]).found.size, 0, "too old to answer: gone");
  const uncached = createDocumentFrequencyCache(0, () => 0);
  uncached.keep("a", new Map([["wing", 3]]));
  assert.equal(uncached.known("a", ["wing"]).found.size, 0, "a lifetime of 0 keeps nothing");
});

test("a value replaced is counted at once and kept in place of the one kept, for its own lifetime", async () => {
  let clock = 0;
  const kept = createKeptCounts<number>(10_000, 10, () => clock);
  let counted = 0;
  const count = (value: number) => async () => {
    counted++;
    return value;
  };
  assert.equal(await kept.get("view", count(1)), 1);
  clock = 5_000;
  assert.equal(await kept.replace("view", count(2)), 2, "replaced within the first value's lifetime");
  assert.equal(await kept.get("view", count(3)), 2, "the replacement is what is kept");
  clock = 14_999;
  assert.equal(await kept.get("view", count(4)), 2, "kept for its own lifetime, from when it was counted");
  assert.equal(counted, 2);
  const uncached = createKeptCounts<number>(0, 10, () => clock);
  assert.equal(await uncached.replace("view", count(5)), 5);
  assert.equal(await uncached.get("view", count(6)), 6, "a lifetime of 0 keeps nothing, replaced or not");
});
