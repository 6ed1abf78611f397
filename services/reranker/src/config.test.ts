import { test } from "node:test";
import assert from "node:assert/strict";
import { loadRerankerConfig } from "./config.js";

test("defaults match the documented table", () => {
  assert.deepEqual(
    { ...loadRerankerConfig({ HOME: "/home/u" }) },
    { host: "127.0.0.1", port: 50054, opsPort: 9094, provider: "builtin", cacheDir: "/home/u/.cache/context-hub", maxPassages: 1000, maxTextChars: 1_000_000, logLevel: "info" },
  );
});

test("variables override defaults and bad ones are all reported", () => {
  const config = loadRerankerConfig({ RERANKER_PORT: "0", RERANKER_CACHE_DIR: "/c", RERANKER_MAX_PASSAGES: "50" });
  assert.equal(config.port, 0);
  assert.equal(config.cacheDir, "/c");
  assert.equal(config.maxPassages, 50);
  assert.throws(() => loadRerankerConfig({ RERANKER_OPS_PORT: "-2", RERANKER_PROVIDER: "cohere" }), (error: Error) => /RERANKER_OPS_PORT/.test(error.message) && /RERANKER_PROVIDER/.test(error.message));
});
