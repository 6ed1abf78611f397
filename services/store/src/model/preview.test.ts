import { test } from "node:test";
import assert from "node:assert/strict";
import { previewLength, toPreview } from "./preview.js";

test("short text is its own preview with whitespace collapsed", () => {
  assert.equal(toPreview("  Hello,\n\n  world\t!  "), "Hello, world !");
});

test("long text is cut at the last word boundary before the limit and marked", () => {
  const text = `${"lorem ".repeat(40)}ipsum ${"dolor ".repeat(40)}`;
  const preview = toPreview(text);
  assert.ok(preview.endsWith("…"));
  assert.ok(preview.length <= previewLength + 1);
  assert.ok(/(lorem|ipsum|dolor)…$/.test(preview), preview);
});

test("a word longer than the boundary window is cut mid-word rather than losing the preview", () => {
  const preview = toPreview(`start ${"x".repeat(1000)}`);
  assert.equal(preview.length, previewLength + 1);
  assert.ok(preview.startsWith("start xxx"));
});

test("a cut never splits a surrogate pair", () => {
  const preview = toPreview(`${"a".repeat(previewLength - 1)}${"😀".repeat(10)}`);
  const beforeEllipsis = preview.slice(0, -1);
  const last = beforeEllipsis.charCodeAt(beforeEllipsis.length - 1);
  assert.ok(!(last >= 0xd800 && last <= 0xdbff), "no dangling high surrogate");
});

test("text whose head is mostly whitespace still says it was cut", () => {
  assert.equal(toPreview(`a${" ".repeat(2000)}b`), "a…");
});
