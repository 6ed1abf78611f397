import { test } from "node:test";
import assert from "node:assert/strict";
import { loadSummarizerConfig } from "./config.js";

test("defaults match the documented table", () => {
  assert.deepEqual({ ...loadSummarizerConfig({}) }, { host: "127.0.0.1", port: 50053, opsPort: 9093, provider: "builtin", minChars: 500, sectionMinChars: 400, maxTextChars: 1_000_000, logLevel: "info" });
});

test("variables override defaults and bad ones are all reported", () => {
  const config = loadSummarizerConfig({ SUMMARIZER_PORT: "0", SUMMARIZER_MIN_CHARS: "200", SUMMARIZER_SECTION_MIN_CHARS: "100", LOG_LEVEL: "debug" });
  assert.equal(config.port, 0);
  assert.equal(config.minChars, 200);
  assert.equal(config.sectionMinChars, 100);
  assert.equal(config.logLevel, "debug");
  assert.throws(() => loadSummarizerConfig({ SUMMARIZER_PROVIDER: "anthropic", SUMMARIZER_MIN_CHARS: "-1" }), (error: Error) => /SUMMARIZER_PROVIDER/.test(error.message) && /SUMMARIZER_MIN_CHARS/.test(error.message));
});
