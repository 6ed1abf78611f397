import { test } from "node:test";
import assert from "node:assert/strict";
import { toDefaultCacheDir } from "./cache-dir.js";

test("the default cache dir follows XDG_CACHE_HOME, then HOME", () => {
  assert.equal(toDefaultCacheDir({ XDG_CACHE_HOME: "/xdg", HOME: "/home/u" }), "/xdg/context-hub");
  assert.equal(toDefaultCacheDir({ XDG_CACHE_HOME: "", HOME: "/home/u" }), "/home/u/.cache/context-hub");
});
