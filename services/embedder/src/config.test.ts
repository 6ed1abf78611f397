import { test } from "node:test";
import assert from "node:assert/strict";
import { loadEmbedderConfig } from "./config.js";

test("defaults match the documented table", () => {
  const config = loadEmbedderConfig({ HOME: "/home/u" });
  assert.deepEqual(
    { ...config },
    { host: "127.0.0.1", port: 50052, opsPort: 9092, provider: "builtin", cacheDir: "/home/u/.cache/context-hub", chunkSize: 1500, chunkOverlap: 200, maxTextChars: 1_000_000, logLevel: "info" },
  );
  assert.ok(Object.isFrozen(config));
});

test("variables override defaults", () => {
  const config = loadEmbedderConfig({ EMBEDDER_PORT: "0", EMBEDDER_OPS_PORT: "-1", EMBEDDER_CACHE_DIR: "/var/cache/ch", EMBEDDER_CHUNK_SIZE: "800", EMBEDDER_CHUNK_OVERLAP: "100", XDG_CACHE_HOME: "/xdg" });
  assert.equal(config.port, 0);
  assert.equal(config.opsPort, -1);
  assert.equal(config.cacheDir, "/var/cache/ch");
  assert.equal(config.chunkSize, 800);
  assert.equal(loadEmbedderConfig({ XDG_CACHE_HOME: "/xdg" }).cacheDir, "/xdg/context-hub");
});

test("every bad variable is reported at once", () => {
  assert.throws(
    () => loadEmbedderConfig({ EMBEDDER_PORT: "http", EMBEDDER_PROVIDER: "openai", EMBEDDER_MAX_TEXT_CHARS: "0" }),
    (error: Error) => /EMBEDDER_PORT/.test(error.message) && /EMBEDDER_PROVIDER/.test(error.message) && /EMBEDDER_MAX_TEXT_CHARS/.test(error.message),
  );
});

test("an overlap above half the chunk size is rejected", () => {
  assert.throws(() => loadEmbedderConfig({ EMBEDDER_CHUNK_SIZE: "1000", EMBEDDER_CHUNK_OVERLAP: "600" }), /EMBEDDER_CHUNK_OVERLAP: must be at most half of EMBEDDER_CHUNK_SIZE \(500\)/);
  assert.equal(loadEmbedderConfig({ EMBEDDER_CHUNK_SIZE: "1000", EMBEDDER_CHUNK_OVERLAP: "500" }).chunkOverlap, 500);
});
