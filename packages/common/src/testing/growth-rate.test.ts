import { test } from "node:test";
import assert from "node:assert/strict";
import { assertLinearGrowth, repeatTo } from "./growth-rate.js";

const sizes = [1_000, 10_000];
const text = (length: number) => repeatTo("ab", length);

/** Counts, for every position, the characters after it equal to it: quadratic in the length. */
function quadratic(input: string): number {
  let count = 0;
  for (let start = 0; start < input.length; start++)
    for (let index = start + 1; index < input.length; index++)
      if (input.charCodeAt(index) === input.charCodeAt(start)) count++;
  return count;
}

/** Counts each character once: linear. */
function linear(input: string): number {
  let count = 0;
  for (let index = 0; index < input.length; index++) count += input.charCodeAt(index) & 1;
  return count;
}

test("a quadratic function fails the growth check, naming its figures", () => {
  assert.throws(
    () => assertLinearGrowth("quadratic", quadratic, text, { sizes, floorMs: 0.05 }),
    /quadratic grows faster than linearly: 1000: [\d.]+ ms, 10000: [\d.]+ ms/,
  );
});

test("a linear function passes it", () => {
  const measured = assertLinearGrowth("linear", linear, text, { sizes: [20_000, 200_000, 2_000_000] });
  assert.deepEqual(
    measured.map((measurement) => measurement.size),
    [20_000, 200_000, 2_000_000],
  );
});
