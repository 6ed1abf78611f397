import { test } from "node:test";
import assert from "node:assert/strict";
import { createCollectionStatisticsCache, createDocumentFrequencyCache } from "./bm25-statistics.js";

test("a tenant's statistics are reused for the lifetime, then counted again, and never serve another tenant", async () => {
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
  assert.equal((await cache.get("a", count("a", 4))).documents, 4, "after it: counted again");
  assert.deepEqual(counts, ["a", "b", "a"]);
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

test("document frequencies are kept per view and lexeme for the lifetime, never serve another view, and the least recently read go first", () => {
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
    [...cache.known("a", ["wing", "lift", "drag"])],
    [
      ["wing", 3],
      ["lift", 0],
    ],
    "a count of 0 is kept too; an uncounted word is absent",
  );
  assert.equal(cache.known("b", ["wing"]).size, 0, "another view never reads them");
  clock = 9_999;
  assert.equal(cache.known("a", ["wing"]).get("wing"), 3, "within the lifetime: reused");
  clock = 10_000;
  assert.equal(cache.known("a", ["wing"]).size, 0, "after it: gone");
  const uncached = createDocumentFrequencyCache(0, () => 0);
  uncached.keep("a", new Map([["wing", 3]]));
  assert.equal(uncached.known("a", ["wing"]).size, 0, "a lifetime of 0 keeps nothing");
});
