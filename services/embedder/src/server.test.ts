import { test } from "node:test";
import assert from "node:assert/strict";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createGrpcClient, createLogger, isContextHubError, vectorFromBytes } from "@context-hub/common";
import { embedderV1 } from "@context-hub/proto";
import { cosineSimilarity } from "@context-hub/text";
import { loadEmbedderConfig } from "./config.js";
import type { EmbeddingProvider } from "./embedding-provider.js";
import { startEmbedder } from "./index.js";

const componentsOf = (vector: embedderV1.Vector | undefined) =>
  vectorFromBytes(vector?.float32Le ?? new Uint8Array(), "vector");

const logger = createLogger("embedder-test", "silent");
// Shared across test runs so only the first run pays for building the word-vector cache.
const cacheDir = process.env.CONTEXT_HUB_TEST_CACHE_DIR ?? join(tmpdir(), "context-hub-test-cache");

async function startForTest(
  t: { after(fn: () => Promise<void> | void): void },
  env: NodeJS.ProcessEnv = {},
  provider?: EmbeddingProvider,
) {
  const config = loadEmbedderConfig({
    EMBEDDER_PORT: "0",
    EMBEDDER_OPS_PORT: "0",
    EMBEDDER_CACHE_DIR: cacheDir,
    ...env,
  });
  const service = await startEmbedder(config, logger, provider === undefined ? {} : { provider });
  t.after(() => service.close());
  const client = createGrpcClient(embedderV1.EmbedderService, {
    address: `127.0.0.1:${service.port}`,
    peer: "embedder",
    deadlineMs: 30_000,
  });
  t.after(() => client.close());
  return { service, client };
}

const norm = (values: number[]) => Math.hypot(...values);

test("Describe names the built-in model, its dimension and the chunking", async (t) => {
  const { client } = await startForTest(t, { EMBEDDER_CHUNK_SIZE: "1000", EMBEDDER_CHUNK_OVERLAP: "100" });
  const reply = await client.describe({});
  assert.deepEqual(
    {
      provider: reply.provider,
      model: reply.model,
      dimension: reply.dimension,
      chunkSize: reply.chunkSize,
      chunkOverlap: reply.chunkOverlap,
    },
    { provider: "builtin", model: "builtin-glove-256d-v3", dimension: 256, chunkSize: 1000, chunkOverlap: 100 },
  );
});

test("EmbedDocuments returns covering chunks with unit vectors, and EmbedQueries finds the right chunk", async (t) => {
  const { client } = await startForTest(t, { EMBEDDER_CHUNK_SIZE: "300", EMBEDDER_CHUNK_OVERLAP: "50" });
  const cooking =
    "Knead the dough, let the bread rise for an hour, then bake it in a hot oven until the crust is golden. ".repeat(3);
  const databases =
    "The Postgres migration added an index to the table, and the slow query now uses the index scan. ".repeat(3);
  const text = `${cooking}\n\n${databases}`;
  const reply = await client.embedDocuments({ texts: [text, ""] });
  assert.equal(reply.model, "builtin-glove-256d-v3");
  assert.equal(reply.dimension, 256);
  assert.equal(reply.documents.length, 2);
  assert.deepEqual(reply.documents[1]!.chunks, []);
  const chunks = reply.documents[0]!.chunks;
  assert.ok(chunks.length >= 3);
  assert.equal(chunks[0]!.start, 0);
  assert.equal(chunks.at(-1)!.end, text.length);
  for (const chunk of chunks) {
    assert.equal(componentsOf(chunk.vector).length, 256);
    assert.ok(Math.abs(norm(componentsOf(chunk.vector)) - 1) < 1e-4);
  }

  const queries = await client.embedQueries({
    texts: ["which database index speeds up the query", "how long should bread dough rise"],
  });
  assert.equal(queries.vectors.length, 2);
  const best = (query: number[]) =>
    chunks.reduce((top, chunk) =>
      cosineSimilarity(query, componentsOf(chunk.vector)) > cosineSimilarity(query, componentsOf(top.vector))
        ? chunk
        : top,
    );
  assert.match(
    text.slice(best(componentsOf(queries.vectors[0])).start, best(componentsOf(queries.vectors[0])).end),
    /Postgres/,
  );
  assert.match(
    text.slice(best(componentsOf(queries.vectors[1])).start, best(componentsOf(queries.vectors[1])).end),
    /dough/,
  );
});

test("a text over EMBEDDER_MAX_TEXT_CHARS is INVALID_ARGUMENT", async (t) => {
  const { client } = await startForTest(t, { EMBEDDER_MAX_TEXT_CHARS: "1000" });
  for (const call of [
    () => client.embedDocuments({ texts: ["fine", "x".repeat(1001)] }),
    () => client.embedQueries({ texts: ["y".repeat(1001)] }),
  ]) {
    await assert.rejects(
      call(),
      (error: unknown) =>
        isContextHubError(error) && error.code === "INVALID_ARGUMENT" && /1001 characters/.test(error.message),
    );
  }
});

test("/readyz reports not ready until the provider has warmed up, and early calls wait instead of failing", async (t) => {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let ready = false;
  const warmed = gate.then(() => {
    ready = true;
  });
  const provider: EmbeddingProvider = {
    describe: () => ({ provider: "gated", model: "gated-1d", dimension: 1 }),
    embed: async ({ texts }) => {
      await warmed;
      return texts.map(() => Float32Array.of(1));
    },
    warm: () => warmed,
    isReady: () => ready,
    close: async () => {},
  };
  const { service, client } = await startForTest(t, {}, provider);
  const readyz = async () => (await fetch(`http://127.0.0.1:${service.opsPort}/readyz`)).status;

  assert.equal(await readyz(), 503);
  const early = client.embedQueries({ texts: ["hello"] });
  release();
  await warmed;
  assert.equal(await readyz(), 200);
  assert.deepEqual((await early).vectors.map(componentsOf), [[1]]);
});
