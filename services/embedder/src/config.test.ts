import { test } from "node:test";
import assert from "node:assert/strict";
import { inspect } from "node:util";
import { loadEmbedderConfig } from "./config.js";

test("defaults match the documented table", () => {
  const config = loadEmbedderConfig({ HOME: "/home/u" });
  assert.deepEqual(
    { ...config },
    {
      host: "127.0.0.1",
      port: 50052,
      opsPort: 9092,
      provider: "builtin",
      builtinModel: "builtin-glove-256d-v3",
      cacheDir: "/home/u/.cache/context-hub",
      chunkSize: 1500,
      chunkOverlap: 200,
      maxTextChars: 1_000_000,
      textBudgetMs: 1500,
      textWorkers: 1,
      http: undefined,
      logLevel: "info",
    },
  );
  assert.ok(Object.isFrozen(config));
});

test("EMBEDDER_BUILTIN_MODEL selects the previous built-in model and refuses an unknown one, listing the choices", () => {
  assert.equal(
    loadEmbedderConfig({ EMBEDDER_BUILTIN_MODEL: "builtin-glove-100d-v2" }).builtinModel,
    "builtin-glove-100d-v2",
  );
  assert.throws(
    () => loadEmbedderConfig({ EMBEDDER_BUILTIN_MODEL: "builtin-glove-100d-v1" }),
    /EMBEDDER_BUILTIN_MODEL.*expected one of builtin-glove-100d-v2, builtin-glove-256d-v3, got "builtin-glove-100d-v1"/,
  );
});

test("variables override defaults", () => {
  const config = loadEmbedderConfig({
    EMBEDDER_PORT: "0",
    EMBEDDER_OPS_PORT: "-1",
    EMBEDDER_CACHE_DIR: "/var/cache/ch",
    EMBEDDER_CHUNK_SIZE: "800",
    EMBEDDER_CHUNK_OVERLAP: "100",
    EMBEDDER_TEXT_BUDGET_MS: "4500",
    EMBEDDER_TEXT_WORKERS: "2",
    XDG_CACHE_HOME: "/xdg",
  });
  assert.deepEqual([config.textBudgetMs, config.textWorkers], [4500, 2]);
  assert.equal(config.port, 0);
  assert.equal(config.opsPort, -1);
  assert.equal(config.cacheDir, "/var/cache/ch");
  assert.equal(config.chunkSize, 800);
  assert.equal(loadEmbedderConfig({ XDG_CACHE_HOME: "/xdg" }).cacheDir, "/xdg/context-hub");
});

test("every bad variable is reported at once", () => {
  assert.throws(
    () =>
      loadEmbedderConfig({
        EMBEDDER_PORT: "http",
        EMBEDDER_PROVIDER: "cohere",
        EMBEDDER_MAX_TEXT_CHARS: "0",
        EMBEDDER_TEXT_BUDGET_MS: "1",
      }),
    (error: Error) =>
      /EMBEDDER_PORT/.test(error.message) &&
      /EMBEDDER_PROVIDER/.test(error.message) &&
      /EMBEDDER_MAX_TEXT_CHARS/.test(error.message) &&
      /EMBEDDER_TEXT_BUDGET_MS/.test(error.message),
  );
});

test("an overlap above half the chunk size is rejected", () => {
  assert.throws(
    () => loadEmbedderConfig({ EMBEDDER_CHUNK_SIZE: "1000", EMBEDDER_CHUNK_OVERLAP: "600" }),
    /EMBEDDER_CHUNK_OVERLAP: must be at most half of EMBEDDER_CHUNK_SIZE \(500\)/,
  );
  assert.equal(loadEmbedderConfig({ EMBEDDER_CHUNK_SIZE: "1000", EMBEDDER_CHUNK_OVERLAP: "500" }).chunkOverlap, 500);
});

test("an HTTP provider gets its documented defaults and the settings it was given", () => {
  const config = loadEmbedderConfig({ EMBEDDER_PROVIDER: "ollama", EMBEDDER_MODEL: "nomic-embed-text" });
  assert.deepEqual(
    { ...config.http, apiKey: config.http?.apiKey },
    {
      baseUrl: "http://127.0.0.1:11434",
      apiKey: undefined,
      model: "nomic-embed-text",
      timeoutMs: 20_000,
      maxRetries: 2,
      dimension: undefined,
      sendDimension: false,
      batchSize: 128,
      concurrency: 4,
    },
  );
  const voyage = loadEmbedderConfig({
    EMBEDDER_PROVIDER: "voyage",
    EMBEDDER_MODEL: "voyage-3.5",
    EMBEDDER_API_KEY: "pa-secret-key",
    EMBEDDER_DIMENSION: "1024",
    EMBEDDER_SEND_DIMENSION: "true",
    EMBEDDER_TIMEOUT_MS: "5000",
    EMBEDDER_MAX_RETRIES: "0",
    EMBEDDER_BATCH_SIZE: "64",
    EMBEDDER_CONCURRENCY: "2",
  }).http!;
  assert.equal(voyage.baseUrl, "https://api.voyageai.com");
  assert.equal(voyage.apiKey?.reveal(), "pa-secret-key");
  assert.deepEqual(
    [voyage.dimension, voyage.sendDimension, voyage.timeoutMs, voyage.maxRetries, voyage.batchSize, voyage.concurrency],
    [1024, true, 5000, 0, 64, 2],
  );
  assert.equal(
    loadEmbedderConfig({ EMBEDDER_PROVIDER: "openai", EMBEDDER_MODEL: "m", EMBEDDER_BASE_URL: "http://vllm:8000" }).http
      ?.apiKey,
    undefined,
    "a self-hosted server needs no key",
  );
});

test("missing settings of an HTTP provider are config errors naming the variable", () => {
  assert.throws(
    () => loadEmbedderConfig({ EMBEDDER_PROVIDER: "openai" }),
    (error: Error) =>
      /EMBEDDER_MODEL: required when EMBEDDER_PROVIDER is openai/.test(error.message) &&
      /EMBEDDER_API_KEY: required when EMBEDDER_PROVIDER is openai at https:\/\/api\.openai\.com/.test(error.message),
  );
  assert.throws(
    () =>
      loadEmbedderConfig({ EMBEDDER_PROVIDER: "ollama", EMBEDDER_MODEL: "m", EMBEDDER_BASE_URL: "localhost:11434" }),
    /EMBEDDER_BASE_URL: expected an http:\/\/ or https:\/\/ URL/,
  );
  assert.throws(
    () => loadEmbedderConfig({ EMBEDDER_SEND_DIMENSION: "true" }),
    /EMBEDDER_SEND_DIMENSION: needs EMBEDDER_DIMENSION/,
  );
  assert.throws(
    () => loadEmbedderConfig({ EMBEDDER_BATCH_SIZE: "0", EMBEDDER_TIMEOUT_MS: "10", EMBEDDER_DIMENSION: "0" }),
    (error: Error) =>
      /EMBEDDER_BATCH_SIZE/.test(error.message) &&
      /EMBEDDER_TIMEOUT_MS/.test(error.message) &&
      /EMBEDDER_DIMENSION/.test(error.message),
  );
});

test("the API key never shows when the config is printed or serialised", () => {
  const config = loadEmbedderConfig({
    EMBEDDER_PROVIDER: "openai",
    EMBEDDER_MODEL: "m",
    EMBEDDER_API_KEY: "sk-do-not-print",
  });
  assert.doesNotMatch(JSON.stringify(config), /sk-do-not-print/);
  assert.doesNotMatch(inspect(config, { depth: 10 }), /sk-do-not-print/);
});
