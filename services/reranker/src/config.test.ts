import { test } from "node:test";
import assert from "node:assert/strict";
import { inspect } from "node:util";
import { loadRerankerConfig, rerankerProviderRequirements } from "./config.js";

test("defaults match the documented table", () => {
  assert.deepEqual(
    { ...loadRerankerConfig({ HOME: "/home/u" }) },
    {
      host: "127.0.0.1",
      port: 50054,
      opsPort: 9094,
      provider: "builtin",
      cacheDir: "/home/u/.cache/context-hub",
      maxPassages: 1000,
      maxTextChars: 1_000_000,
      http: undefined,
      logLevel: "info",
    },
  );
});

test("variables override defaults and bad ones are all reported", () => {
  const config = loadRerankerConfig({ RERANKER_PORT: "0", RERANKER_CACHE_DIR: "/c", RERANKER_MAX_PASSAGES: "50" });
  assert.equal(config.port, 0);
  assert.equal(config.cacheDir, "/c");
  assert.equal(config.maxPassages, 50);
  assert.throws(
    () => loadRerankerConfig({ RERANKER_OPS_PORT: "-2", RERANKER_PROVIDER: "jina" }),
    (error: Error) => /RERANKER_OPS_PORT/.test(error.message) && /RERANKER_PROVIDER/.test(error.message),
  );
});

test("an HTTP provider gets its documented defaults, batch size included", () => {
  const cohere = loadRerankerConfig({
    RERANKER_PROVIDER: "cohere",
    RERANKER_MODEL: "rerank-v3.5",
    RERANKER_API_KEY: "co-secret",
  }).http!;
  assert.deepEqual(
    { ...cohere, apiKey: cohere.apiKey?.reveal() },
    {
      baseUrl: "https://api.cohere.com",
      apiKey: "co-secret",
      model: "rerank-v3.5",
      timeoutMs: 10_000,
      maxRetries: 2,
      batchSize: 1000,
      concurrency: 4,
    },
  );
  const voyage = loadRerankerConfig({
    RERANKER_PROVIDER: "voyage",
    RERANKER_MODEL: "rerank-2.5",
    RERANKER_API_KEY: "pa-secret",
  }).http!;
  assert.deepEqual(
    [voyage.baseUrl, voyage.apiKey?.reveal(), voyage.batchSize],
    ["https://api.voyageai.com", "pa-secret", 1000],
  );
  const tei = loadRerankerConfig({
    RERANKER_PROVIDER: "tei",
    RERANKER_MODEL: "BAAI/bge-reranker-base",
    RERANKER_BASE_URL: "http://tei:8080",
  }).http!;
  assert.deepEqual([tei.baseUrl, tei.apiKey, tei.batchSize], ["http://tei:8080", undefined, 32]);
  const tuned = loadRerankerConfig({
    RERANKER_PROVIDER: "tei",
    RERANKER_MODEL: "m",
    RERANKER_BASE_URL: "http://tei",
    RERANKER_BATCH_SIZE: "8",
    RERANKER_CONCURRENCY: "1",
    RERANKER_TIMEOUT_MS: "500",
    RERANKER_MAX_RETRIES: "0",
  }).http!;
  assert.deepEqual([tuned.batchSize, tuned.concurrency, tuned.timeoutMs, tuned.maxRetries], [8, 1, 500, 0]);
});

test("missing settings of an HTTP provider are config errors naming the variable, and the key never prints", () => {
  assert.throws(
    () => loadRerankerConfig({ RERANKER_PROVIDER: "tei" }),
    (error: Error) =>
      /RERANKER_MODEL: required when RERANKER_PROVIDER is tei/.test(error.message) &&
      /RERANKER_BASE_URL: required when RERANKER_PROVIDER is tei/.test(error.message),
  );
  assert.throws(
    () => loadRerankerConfig({ RERANKER_PROVIDER: "cohere", RERANKER_MODEL: "rerank-v3.5" }),
    /RERANKER_API_KEY: required when RERANKER_PROVIDER is cohere at https:\/\/api\.cohere\.com/,
  );
  assert.throws(() => loadRerankerConfig({ RERANKER_BATCH_SIZE: "0" }), /RERANKER_BATCH_SIZE/);
  const config = loadRerankerConfig({
    RERANKER_PROVIDER: "cohere",
    RERANKER_MODEL: "m",
    RERANKER_API_KEY: "co-do-not-print",
  });
  assert.doesNotMatch(JSON.stringify(config), /co-do-not-print/);
  assert.doesNotMatch(inspect(config, { depth: 10 }), /co-do-not-print/);
});

test("every provider with a hosted default address needs a key there, and only there", () => {
  const hosted = Object.entries(rerankerProviderRequirements).filter(
    ([, requirements]) => requirements.defaultBaseUrl?.startsWith("https://") === true,
  );
  assert.deepEqual(
    hosted.map(([provider]) => provider),
    ["cohere", "voyage"],
  );
  for (const [provider, requirements] of hosted) {
    const escaped = requirements.defaultBaseUrl!.replace(/[./]/g, "\\$&");
    assert.throws(
      () => loadRerankerConfig({ RERANKER_PROVIDER: provider, RERANKER_MODEL: "m" }),
      new RegExp(`RERANKER_API_KEY: required when RERANKER_PROVIDER is ${provider} at ${escaped}`),
      provider,
    );
    for (const baseUrl of [requirements.defaultBaseUrl!, `${requirements.defaultBaseUrl!}/v1/`]) {
      assert.throws(
        () => loadRerankerConfig({ RERANKER_PROVIDER: provider, RERANKER_MODEL: "m", RERANKER_BASE_URL: baseUrl }),
        /RERANKER_API_KEY: required/,
        `${provider} at ${baseUrl}`,
      );
    }
    const proxied = loadRerankerConfig({
      RERANKER_PROVIDER: provider,
      RERANKER_MODEL: "m",
      RERANKER_BASE_URL: "http://rerank-proxy:8080",
    }).http!;
    assert.equal(proxied.apiKey, undefined, `${provider} behind a proxy or self-hosted needs no key`);
  }
});
