import { test } from "node:test";
import assert from "node:assert/strict";
import { createChildAbortController } from "./abort-signals.js";

test("a child controller follows its parent's abort and reason, and can abort alone", () => {
  const parent = new AbortController();
  const child = createChildAbortController(parent.signal);
  parent.abort("the caller went away");
  assert.equal(child.signal.aborted, true);
  assert.equal(child.signal.reason, "the caller went away");

  const already = createChildAbortController(AbortSignal.abort("gone before"));
  assert.equal(already.signal.reason, "gone before");

  const alone = new AbortController();
  const own = createChildAbortController(alone.signal);
  own.abort("budget passed");
  assert.equal(alone.signal.aborted, false, "the parent is untouched");
  assert.equal(own.signal.reason, "budget passed");
});

test("once released, the child no longer follows its parent", () => {
  const parent = new AbortController();
  const child = createChildAbortController(parent.signal);
  child.release();
  parent.abort();
  assert.equal(child.signal.aborted, false);
  assert.equal(createChildAbortController(undefined).signal.aborted, false);
});
