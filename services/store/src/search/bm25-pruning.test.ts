import { test } from "node:test";
import assert from "node:assert/strict";
import { idf } from "./bm25-sql.js";
import { planPruning, prunedPageHolds } from "./bm25-pruning.js";

const bm25 = { k1: 1.2, b: 0.75 };

test("the candidates are the rarest terms whose entries fit the limit; the ceiling sums the others' weights × (k1 + 1)", () => {
  const terms = new Map([
    ["common", 1],
    ["rare", 1],
    ["uncommon", 2],
    ["absent", 1],
  ]);
  const frequencies = new Map([
    ["common", 700],
    ["rare", 5],
    ["uncommon", 60],
    ["absent", 0],
  ]);
  const plan = planPruning(terms, frequencies, 1000, bm25, 100);
  assert.deepEqual(plan?.candidates, ["rare", "uncommon"]);
  assert.ok(Math.abs(plan!.ceiling - idf(1000, 700) * 2.2) < 1e-12);
  const narrower = planPruning(terms, frequencies, 1000, bm25, 50);
  assert.deepEqual(narrower?.candidates, ["rare"]);
  // A repeated query word counts again, in the ceiling too.
  assert.ok(Math.abs(narrower!.ceiling - (2 * idf(1000, 60) + idf(1000, 700)) * 2.2) < 1e-12);
});

test("no plan when pruning cannot help: every term fits the limit, or not even the rarest does", () => {
  const terms = new Map([
    ["a", 1],
    ["b", 1],
  ]);
  assert.equal(
    planPruning(
      terms,
      new Map([
        ["a", 10],
        ["b", 20],
      ]),
      1000,
      bm25,
      100,
    ),
    undefined,
  );
  assert.equal(
    planPruning(
      terms,
      new Map([
        ["a", 200],
        ["b", 300],
      ]),
      1000,
      bm25,
      100,
    ),
    undefined,
  );
  assert.equal(
    planPruning(
      terms,
      new Map([
        ["a", 10],
        ["b", 300],
      ]),
      1000,
      bm25,
      0,
    ),
    undefined,
    "0 turns it off",
  );
});

test("a page holds only when it is full and its last score is above the ceiling", () => {
  assert.equal(prunedPageHolds([5, 4, 3], 3, 2.9), true);
  assert.equal(prunedPageHolds([5, 4, 3], 3, 3), false, "a tie could be outranked by a later entry");
  assert.equal(prunedPageHolds([5, 4], 3, 0.1), false, "too few candidates: others may fill the page");
  assert.equal(prunedPageHolds([], 0, 10), true);
});
