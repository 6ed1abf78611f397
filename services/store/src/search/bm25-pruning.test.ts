import { test } from "node:test";
import assert from "node:assert/strict";
import { idf } from "./bm25-sql.js";
import {
  maxQualifyingSets,
  maxSeededTerms,
  pageFloor,
  planPruning,
  planSeeding,
  prunedPageHolds,
  qualifyingTermSets,
} from "./bm25-pruning.js";

const bm25 = { k1: 1.2, b: 0.75 };

test("the candidates are the rarest terms whose entries fit the limit (a term no entry held among them); the ceiling sums the others' weights × (k1 + 1)", () => {
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
  // "absent" had no entry when counted; one written since may hold it and score high, so it is a candidate too.
  assert.deepEqual(plan?.candidates, ["absent", "rare", "uncommon"]);
  assert.ok(Math.abs(plan!.ceiling - idf(1000, 700) * 2.2) < 1e-12);
  const narrower = planPruning(terms, frequencies, 1000, bm25, 50);
  assert.deepEqual(narrower?.candidates, ["absent", "rare"]);
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
  assert.equal(
    planPruning(
      new Map([
        ["absent", 1],
        ["a", 1],
      ]),
      new Map([
        ["absent", 0],
        ["a", 300],
      ]),
      1000,
      bm25,
      100,
    ),
    undefined,
    "candidates no entry held would rank nothing",
  );
});

test("a page holds only when it is full and its last score is above the ceiling", () => {
  assert.equal(prunedPageHolds([5, 4, 3], 3, 2.9), true);
  assert.equal(prunedPageHolds([5, 4, 3], 3, 3), false, "a tie could be outranked by a later entry");
  assert.equal(prunedPageHolds([5, 4], 3, 0.1), false, "too few candidates: others may fill the page");
  assert.equal(prunedPageHolds([], 0, 10), true);
});

test("seeding needs two or more held words whose entries together pass the limit, and at most maxSeededTerms words", () => {
  const terms = new Map([
    ["river", 1],
    ["stone", 2],
    ["absent", 1],
  ]);
  const frequencies = new Map([
    ["river", 300],
    ["stone", 200],
    ["absent", 0],
  ]);
  const plan = planSeeding(terms, frequencies, 1000, bm25, 100);
  assert.deepEqual(plan?.seed, ["river", "stone"], "the seed is the words some entry holds, sorted");
  assert.ok(Math.abs(plan!.ceilings.get("stone")! - 2 * idf(1000, 200) * 2.2) < 1e-12);
  assert.ok(
    Math.abs(plan!.ceilings.get("absent")! - idf(1000, 0) * 2.2) < 1e-12,
    "a word no entry held keeps its ceiling",
  );
  assert.equal(planSeeding(terms, frequencies, 1000, bm25, 500), undefined, "500 entries in all: rank them");
  assert.equal(planSeeding(terms, frequencies, 1000, bm25, 0), undefined, "0 turns it off");
  assert.equal(planSeeding(new Map([["river", 1]]), frequencies, 1000, bm25, 100), undefined, "one word");
  const many = new Map(Array.from({ length: maxSeededTerms + 1 }, (_, index) => [`w${index}`, 1]));
  assert.equal(planSeeding(many, new Map([...many.keys()].map((word) => [word, 400])), 1000, bm25, 100), undefined);
});

test("a page's floor is its last score when it is full", () => {
  assert.equal(pageFloor([5, 4, 3], 3), 3);
  assert.equal(pageFloor([5, 4], 3), undefined);
  assert.equal(pageFloor([], 0), undefined);
});

test("the qualifying sets are exactly the minimal word sets whose ceilings pass the floor", () => {
  const ceilings = new Map([
    ["a", 3],
    ["b", 2],
    ["c", 1.5],
  ]);
  assert.deepEqual(qualifyingTermSets(ceilings, 3.2), [
    ["a", "b"],
    ["a", "c"],
    ["b", "c"],
  ]);
  assert.deepEqual(qualifyingTermSets(ceilings, 2.5), [["a"], ["b", "c"]]);
  assert.deepEqual(qualifyingTermSets(ceilings, 6), [["a", "b", "c"]]);
  assert.deepEqual(qualifyingTermSets(ceilings, 7), [], "nothing can reach it");
  // A sum equal to the floor passes (an entry's score is below its ceilings, but rounding may meet the floor).
  assert.deepEqual(
    qualifyingTermSets(
      new Map([
        ["a", 1],
        ["b", 1],
      ]),
      2,
    ),
    [["a", "b"]],
  );
  assert.deepEqual(
    qualifyingTermSets(
      new Map([
        ["a", 1],
        ["b", 1],
      ]),
      1,
    ),
    [["a"], ["b"]],
  );

  // Against every set of words, over random ceilings and floors: a set passes exactly when it holds a returned set,
  // and every returned set passes while none of its words can be dropped.
  let state = 17;
  const random = () => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 4294967296;
  for (let round = 0; round < 300; round++) {
    const words = Array.from({ length: 2 + Math.floor(random() * 5) }, (_, index) => `w${index}`);
    const ceiling = new Map(words.map((word) => [word, 0.1 + random() * 5]));
    const total = [...ceiling.values()].reduce((sum, value) => sum + value, 0);
    const floor = random() * total;
    const sets = qualifyingTermSets(ceiling, floor);
    if (sets === undefined) continue;
    assert.ok(sets.length <= maxQualifyingSets);
    const sum = (set: readonly string[]) => set.reduce((total, word) => total + ceiling.get(word)!, 0);
    for (let mask = 1; mask < 1 << words.length; mask++) {
      const set = words.filter((_, index) => mask & (1 << index));
      const passes = sum(set) >= floor - 1e-9;
      const covered: boolean = sets.some((qualifying) => qualifying.every((word) => set.includes(word)));
      assert.equal(covered, passes, `${set.join(",")} over floor ${floor}`);
    }
    for (const set of sets) for (const word of set) assert.ok(sum(set.filter((other) => other !== word)) < floor);
  }
});

test("too many qualifying sets: none", () => {
  const words = Array.from({ length: maxSeededTerms }, (_, index) => [`w${index}`, 1] as const);
  // Any half of eight equal words passes: C(8, 4) = 70 sets.
  assert.equal(qualifyingTermSets(new Map(words), 3.5), undefined);
  assert.equal(qualifyingTermSets(new Map(words), 7.5)?.length, 1);
});
