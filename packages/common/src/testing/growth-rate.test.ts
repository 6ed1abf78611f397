import { test } from "node:test";
import assert from "node:assert/strict";
import { assertLinearGrowth, repeatTo } from "./growth-rate.js";

const sizes = [1_000, 10_000];
const text = (length: number) => repeatTo("ab", length);

/** Counts, for every position, the characters anywhere equal to it: n² comparisons for n characters. */
function quadratic(input: string): number {
  let count = 0;
  for (let start = 0; start < input.length; start++) {
    const char = input.charCodeAt(start);
    for (let index = 0; index < input.length; index++) if (input.charCodeAt(index) === char) count++;
  }
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
    () => assertLinearGrowth("quadratic", quadratic, text, { sizes }),
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
