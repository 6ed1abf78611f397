import { test } from "node:test";
import assert from "node:assert/strict";
import { fullJitterDelay, isRetryableStatus, parseRetryAfter } from "./retry-policy.js";

test("429 and 5xx are retryable; other statuses are not", () => {
  assert.deepEqual([429, 500, 502, 503, 504, 599].map(isRetryableStatus), [true, true, true, true, true, true]);
  assert.deepEqual([200, 400, 401, 403, 404, 408, 413, 422, 600].map(isRetryableStatus), [
    false,
    false,
    false,
    false,
    false,
    false,
    false,
    false,
    false,
  ]);
});

test("Retry-After is read as seconds (fractions too), as an HTTP date, or from retry-after-ms", () => {
  const now = Date.parse("Wed, 21 Oct 2015 07:28:00 GMT");
  assert.equal(parseRetryAfter(new Headers({ "retry-after": "3" }), now), 3000);
  assert.equal(parseRetryAfter(new Headers({ "retry-after": "0.25" }), now), 250);
  assert.equal(parseRetryAfter(new Headers({ "retry-after": "Wed, 21 Oct 2015 07:28:05 GMT" }), now), 5000);
  assert.equal(
    parseRetryAfter(new Headers({ "retry-after": "Wed, 21 Oct 2015 07:27:00 GMT" }), now),
    0,
    "a date in the past means no wait",
  );
  assert.equal(
    parseRetryAfter(new Headers({ "retry-after-ms": "120", "retry-after": "9" }), now),
    120,
    "retry-after-ms is more precise and wins",
  );
  assert.equal(parseRetryAfter(new Headers({}), now), undefined);
  for (const garbage of ["soon", "-1", "1e3", "", "12 34"])
    assert.equal(parseRetryAfter(new Headers({ "retry-after": garbage }), now), undefined, garbage);
});

test("full jitter stays below the exponential step and the cap", () => {
  assert.equal(
    fullJitterDelay(0, 250, 8000, () => 0),
    0,
  );
  assert.equal(
    fullJitterDelay(0, 250, 8000, () => 0.999),
    249,
  );
  assert.equal(
    fullJitterDelay(3, 250, 8000, () => 0.5),
    1000,
  );
  assert.equal(
    fullJitterDelay(10, 250, 8000, () => 0.5),
    4000,
    "capped at 8000 before jitter",
  );
});
