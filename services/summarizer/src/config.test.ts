import { test } from "node:test";
import assert from "node:assert/strict";
import { inspect } from "node:util";
import { loadSummarizerConfig } from "./config.js";

test("defaults match the documented table", () => {
  assert.deepEqual(
    { ...loadSummarizerConfig({}) },
    {
      host: "127.0.0.1",
      port: 50053,
      opsPort: 9093,
      provider: "builtin",
      minChars: 500,
      sectionMinChars: 400,
      maxTextChars: 1_000_000,
      textBudgetMs: 3000,
      textWorkers: 1,
      http: undefined,
      logLevel: "info",
    },
  );
});

test("variables override defaults and bad ones are all reported", () => {
  const config = loadSummarizerConfig({
    SUMMARIZER_PORT: "0",
    SUMMARIZER_MIN_CHARS: "200",
    SUMMARIZER_SECTION_MIN_CHARS: "100",
    SUMMARIZER_TEXT_BUDGET_MS: "4000",
    SUMMARIZER_TEXT_WORKERS: "3",
    LOG_LEVEL: "debug",
  });
  assert.equal(config.port, 0);
  assert.deepEqual([config.textBudgetMs, config.textWorkers], [4000, 3]);
  assert.equal(config.minChars, 200);
  assert.equal(config.sectionMinChars, 100);
  assert.equal(config.logLevel, "debug");
  assert.throws(
    () =>
      loadSummarizerConfig({
        SUMMARIZER_PROVIDER: "claude",
        SUMMARIZER_MIN_CHARS: "-1",
        SUMMARIZER_TEXT_BUDGET_MS: "0",
        SUMMARIZER_TEXT_WORKERS: "0",
      }),
    (error: Error) =>
      /SUMMARIZER_PROVIDER/.test(error.message) &&
      /SUMMARIZER_MIN_CHARS/.test(error.message) &&
      /SUMMARIZER_TEXT_BUDGET_MS/.test(error.message) &&
      /SUMMARIZER_TEXT_WORKERS/.test(error.message),
  );
});

test("an LLM provider gets its documented defaults and the settings it was given", () => {
  const anthropic = loadSummarizerConfig({
    SUMMARIZER_PROVIDER: "anthropic",
    SUMMARIZER_MODEL: "claude-haiku-4-5",
    SUMMARIZER_API_KEY: "sk-ant-secret",
  }).http!;
  assert.deepEqual(
    { ...anthropic, apiKey: anthropic.apiKey?.reveal() },
    {
      baseUrl: "https://api.anthropic.com",
      apiKey: "sk-ant-secret",
      model: "claude-haiku-4-5",
      timeoutMs: 25_000,
      maxRetries: 2,
      maxTokens: 1024,
      concurrency: 16,
      maxInputChars: 100_000,
    },
  );
  const ollama = loadSummarizerConfig({
    SUMMARIZER_PROVIDER: "ollama",
    SUMMARIZER_MODEL: "qwen3:8b",
    SUMMARIZER_TIMEOUT_MS: "60000",
    SUMMARIZER_MAX_RETRIES: "1",
    SUMMARIZER_MAX_TOKENS: "2048",
    SUMMARIZER_CONCURRENCY: "2",
    SUMMARIZER_MAX_INPUT_CHARS: "20000",
  }).http!;
  assert.deepEqual(
    [
      ollama.baseUrl,
      ollama.apiKey,
      ollama.timeoutMs,
      ollama.maxRetries,
      ollama.maxTokens,
      ollama.concurrency,
      ollama.maxInputChars,
    ],
    ["http://127.0.0.1:11434", undefined, 60_000, 1, 2048, 2, 20_000],
  );
});

test("missing settings of an LLM provider are config errors naming the variable, and the key never prints", () => {
  assert.throws(
    () => loadSummarizerConfig({ SUMMARIZER_PROVIDER: "anthropic" }),
    (error: Error) =>
      /SUMMARIZER_MODEL: required when SUMMARIZER_PROVIDER is anthropic/.test(error.message) &&
      /SUMMARIZER_API_KEY: required when SUMMARIZER_PROVIDER is anthropic at https:\/\/api\.anthropic\.com/.test(
        error.message,
      ),
  );
  assert.throws(
    () =>
      loadSummarizerConfig({
        SUMMARIZER_PROVIDER: "openai",
        SUMMARIZER_MODEL: "m",
        SUMMARIZER_API_KEY: "k",
        SUMMARIZER_MAX_TOKENS: "0",
      }),
    /SUMMARIZER_MAX_TOKENS/,
  );
  const config = loadSummarizerConfig({
    SUMMARIZER_PROVIDER: "openai",
    SUMMARIZER_MODEL: "m",
    SUMMARIZER_API_KEY: "sk-do-not-print",
  });
  assert.doesNotMatch(JSON.stringify(config), /sk-do-not-print/);
  assert.doesNotMatch(inspect(config, { depth: 10 }), /sk-do-not-print/);
});
