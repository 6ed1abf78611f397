import { test } from "node:test";
import assert from "node:assert/strict";
import { isStale } from "./search-statistics.js";

test("a table is re-analysed when never analysed, or when its size drifted by more than a fifth (and 128 pages)", () => {
  assert.equal(isStale({ recordedTuples: -1, recordedPages: 0, pages: 0 }), true, "never analysed");
  assert.equal(isStale({ recordedTuples: 0, recordedPages: 0, pages: 100 }), false, "a small store is left alone");
  assert.equal(isStale({ recordedTuples: 0, recordedPages: 0, pages: 129 }), true);
  assert.equal(isStale({ recordedTuples: 1e5, recordedPages: 10_000, pages: 12_000 }), false, "20% is within bounds");
  assert.equal(isStale({ recordedTuples: 1e5, recordedPages: 10_000, pages: 12_001 }), true);
  assert.equal(isStale({ recordedTuples: 1e5, recordedPages: 10_000, pages: 7_999 }), true, "shrinking counts too");
});
