import { test } from "node:test";
import assert from "node:assert/strict";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createGrpcClient, createLogger, isContextHubError } from "@context-hub/common";
import { rerankerV1 } from "@context-hub/proto";
import { loadRerankerConfig } from "./config.js";
import { startReranker } from "./index.js";
import type { RerankProvider } from "./rerank-provider.js";

const logger = createLogger("reranker-test", "silent");
// Shared across test runs so only the first run pays for building the word-vector cache.
const cacheDir = process.env.CONTEXT_HUB_TEST_CACHE_DIR ?? join(tmpdir(), "context-hub-test-cache");

async function startForTest(t: { after(fn: () => Promise<void> | void): void }, provider?: RerankProvider) {
  const config = loadRerankerConfig({
    RERANKER_PORT: "0",
    RERANKER_OPS_PORT: "0",
    RERANKER_CACHE_DIR: cacheDir,
    RERANKER_MAX_PASSAGES: "5",
  });
  const service = await startReranker(config, logger, provider === undefined ? {} : { provider });
  t.after(() => service.close());
  const client = createGrpcClient(rerankerV1.RerankerService, {
    address: `127.0.0.1:${service.port}`,
    peer: "reranker",
    deadlineMs: 30_000,
  });
  t.after(() => client.close());
  return { service, client };
}

const passages = [
  { id: "bread", text: "Bake the bread at 220 degrees until the crust is golden." },
  {
    id: "postgres",
    text: "To speed up slow Postgres queries, add an index on the filtered column and check the plan.",
  },
  { id: "football", text: "The football team won the championship after a late goal." },
];

test("Describe names the built-in model", async (t) => {
  const { client } = await startForTest(t);
  const reply = await client.describe({});
  assert.deepEqual(
    { provider: reply.provider, model: reply.model },
    { provider: "builtin", model: "builtin-bm25-glove-v2" },
  );
});

test("Rerank puts the relevant passage first, sorted by score, and honours top_n", async (t) => {
  const { client } = await startForTest(t);
  const all = await client.rerank({ query: "why are my postgres queries slow", passages });
  assert.deepEqual(all.results.map((r) => [r.id, r.index]).slice(0, 1), [["postgres", 1]]);
  assert.equal(all.results.length, 3);
  const scores = all.results.map((r) => r.score);
  assert.deepEqual(
    scores,
    [...scores].sort((left, right) => right - left),
  );
  const top = await client.rerank({ query: "late goal", passages, topN: 1 });
  assert.deepEqual(
    top.results.map((r) => r.id),
    ["football"],
  );
});

test("an empty query or too many passages is INVALID_ARGUMENT", async (t) => {
  const { client } = await startForTest(t);
  const invalid = (error: unknown) => isContextHubError(error) && error.code === "INVALID_ARGUMENT";
  await assert.rejects(client.rerank({ query: " ", passages }), invalid);
  await assert.rejects(client.rerank({ query: "bread", passages: [...passages, ...passages] }), invalid);
});

test("/readyz reports not ready until the provider has warmed up", async (t) => {
  let release!: () => void;
  let ready = false;
  const warmed = new Promise<void>((resolve) => (release = resolve)).then(() => {
    ready = true;
  });
  const provider: RerankProvider = {
    describe: () => ({ provider: "gated", model: "m" }),
    score: async (_query, texts) => texts.map(() => 0),
    warm: () => warmed,
    isReady: () => ready,
    close: async () => {},
  };
  const { service } = await startForTest(t, provider);
  const readyz = async () => (await fetch(`http://127.0.0.1:${service.opsPort}/readyz`)).status;
  assert.equal(await readyz(), 503);
  release();
  await warmed;
  assert.equal(await readyz(), 200);
});
