import { test } from "node:test";
import assert from "node:assert/strict";
import { fuseByNormalisedScore } from "./score-fusion.js";

const close = (actual: number | undefined, expected: number) =>
  assert.ok(actual !== undefined && Math.abs(actual - expected) < 1e-9, `${actual} ≠ ${expected}`);

test("min-max rescales each leg to [0, 1] over its candidates and takes the weighted mean", () => {
  const fused = fuseByNormalisedScore(
    [
      {
        leg: "fts",
        items: [
          { id: "a", score: 12 },
          { id: "b", score: 7 },
          { id: "c", score: 2 },
        ],
        weight: 2,
      },
      {
        leg: "semantic",
        items: [
          { id: "c", score: 0.8 },
          { id: "d", score: 0.4 },
        ],
      },
    ],
    "minmax",
  );
  assert.deepEqual(
    fused.map((item) => item.id),
    ["a", "c", "b", "d"],
    "c ties with b and goes first for its better best rank",
  );
  close(fused[0]?.score, 2 / 3);
  // c: the worst full-text candidate (0) and the best semantic one (1).
  close(fused[1]?.score, 1 / 3);
  close(fused[2]?.score, (2 * 0.5) / 3);
  close(fused[3]?.score, 0);
  assert.deepEqual(fused[1]?.ranks, { fts: 3, semantic: 1 });
  assert.deepEqual(fused[1]?.normalised, { fts: 0, semantic: 1 });
});

test("scores lie in [0, 1] whatever the legs' scales, and a leg whose scores are all equal counts each candidate fully", () => {
  for (const normalisation of ["minmax", "zscore"] as const) {
    const fused = fuseByNormalisedScore(
      [
        { leg: "fts", items: [10_000, 5, -3, -40].map((score, index) => ({ id: `f${index}`, score })) },
        { leg: "semantic", items: ["x", "y"].map((id) => ({ id, score: 0.3 })) },
      ],
      normalisation,
    );
    for (const item of fused) assert.ok(item.score >= 0 && item.score <= 1, `${normalisation}: ${item.score}`);
    assert.deepEqual(
      fused.filter((item) => item.ranks.semantic !== undefined).map((item) => item.normalised.semantic),
      [1, 1],
    );
  }
});

test("z-score puts a leg's mean at 0.5 and three standard deviations either side at 0 and 1", () => {
  // Mean 3, standard deviation 1 (population): 2 and 4 sit one deviation away.
  const items = [4, 4, 2, 2].map((score, index) => ({ id: `d${index}`, score }));
  const fused = fuseByNormalisedScore([{ leg: "fts", items }], "zscore");
  close(fused[0]?.score, 4 / 6);
  close(fused[3]?.score, 2 / 6);
  const clamped = fuseByNormalisedScore(
    [
      {
        leg: "fts",
        items: [1000, ...Array.from({ length: 99 }, () => 0)].map((score, index) => ({ id: `e${index}`, score })),
      },
    ],
    "zscore",
  );
  close(clamped[0]?.score, 1);
});

test("a weight of 0 ignores its leg, and the order is deterministic on ties", () => {
  const fused = fuseByNormalisedScore(
    [
      {
        leg: "fts",
        items: [
          { id: "b", score: 1 },
          { id: "a", score: 1 },
        ],
      },
      { leg: "semantic", items: [{ id: "z", score: 1 }], weight: 0 },
    ],
    "minmax",
  );
  assert.deepEqual(
    fused.map((item) => [item.id, item.score]),
    [
      ["b", 1],
      ["a", 1],
      ["z", 0],
    ],
  );
});
