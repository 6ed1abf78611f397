import { test } from "node:test";
import assert from "node:assert/strict";
import { fuseByReciprocalRank } from "./rrf.js";

test("an item's fused score is the sum of weight / (k + rank) over the lists that hold it", () => {
  const fused = fuseByReciprocalRank(
    [
      { leg: "fts", ids: ["a", "b", "c"] },
      { leg: "semantic", ids: ["c", "a", "d"] },
    ],
    60,
  );
  assert.deepEqual(
    fused.map((item) => item.id),
    ["a", "c", "b", "d"],
  );
  const a = fused[0]!;
  assert.ok(Math.abs(a.score - (1 / 61 + 1 / 62)) < 1e-12);
  assert.deepEqual(a.ranks, { fts: 1, semantic: 2 });
  assert.deepEqual(fused[3]?.ranks, { semantic: 3 });
});

test("weights tilt the fusion; a zero weight ignores a leg's order but keeps its items", () => {
  const lists = (weight: number) => [
    { leg: "fts", ids: ["x", "y"] },
    { leg: "semantic", ids: ["y", "x"], weight },
  ];
  assert.deepEqual(
    fuseByReciprocalRank(lists(2)).map((item) => item.id),
    ["y", "x"],
  );
  assert.deepEqual(
    fuseByReciprocalRank(lists(0)).map((item) => item.id),
    ["x", "y"],
  );
});

test("ties go to the better best rank, then the smaller id; duplicates count once; k must be positive", () => {
  const fused = fuseByReciprocalRank([
    { leg: "fts", ids: ["b", "a", "a"] },
    { leg: "semantic", ids: ["a", "b"] },
  ]);
  assert.deepEqual(
    fused.map((item) => [item.id, item.ranks]),
    [
      ["a", { fts: 2, semantic: 1 }],
      ["b", { fts: 1, semantic: 2 }],
    ],
  );
  assert.throws(() => fuseByReciprocalRank([], 0), RangeError);
});
