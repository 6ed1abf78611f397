import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isContextHubError } from "@context-hub/common";
import {
  cosineSimilarity,
  embedText,
  loadWordVectors,
  toDefaultCacheDir,
  toWordVectorCachePath,
} from "@context-hub/text";
import { builtinEmbeddingModel, createBuiltinEmbeddingProvider } from "./builtin-embedding-provider.js";
import { createEmbedderTextWork } from "./embedder-text-work.js";

test("word vectors that cannot be loaded are a PROVIDER_ERROR naming the provider, the model, the directory and the cause", async (t) => {
  const cacheDir = mkdtempSync(join(tmpdir(), "context-hub-embedder-cache-"));
  t.after(() => rmSync(cacheDir, { recursive: true, force: true }));
  // A directory where the cache file belongs cannot be read as one.
  mkdirSync(toWordVectorCachePath(cacheDir));
  const work = createEmbedderTextWork({ workers: 1, budgetMs: 60_000, cacheDir });
  t.after(() => work.close());
  const provider = createBuiltinEmbeddingProvider({ cacheDir, work });
  await assert.rejects(provider.embed({ texts: ["a query"], inputType: "query" }), (error: unknown) => {
    assert.ok(isContextHubError(error));
    assert.equal(error.code, "PROVIDER_ERROR");
    assert.equal(
      error.message.startsWith(
        `builtin embeddings (model ${builtinEmbeddingModel}) failed: the word vectors in ${cacheDir} could not be loaded: EISDIR`,
      ),
      true,
      error.message,
    );
    assert.equal(error.remedy, "check EMBEDDER_CACHE_DIR: a directory this process can read and write");
    return true;
  });
  assert.equal(provider.isReady(), false);
});

test("the previous built-in model stays selectable: v2 answers in its own 100 dimensions, v3 in 256, and v3 keeps v2's meaning in its first 100", async () => {
  const cacheDir = toDefaultCacheDir(process.env);
  const work = {
    embed: () => Promise.reject(new Error("short texts are embedded on the calling thread")),
    warm: async () => {},
  };
  const previous = createBuiltinEmbeddingProvider({ cacheDir, work, model: "builtin-glove-100d-v2" });
  const current = createBuiltinEmbeddingProvider({ cacheDir, work });
  assert.deepEqual(previous.describe(), { provider: "builtin", model: "builtin-glove-100d-v2", dimension: 100 });
  assert.deepEqual(current.describe(), { provider: "builtin", model: builtinEmbeddingModel, dimension: 256 });
  const texts = ["boundary layer transition on a swept wing", "sourdough bread needs a hot oven"];
  const [wing, bread] = await previous.embed({ texts, inputType: "document" });
  const [wing3, bread3] = await current.embed({ texts, inputType: "document" });
  assert.deepEqual(wing, embedText(texts[0]!, await loadWordVectors(cacheDir)), "v2 is the embedding it always was");
  assert.equal(wing!.length, 100);
  assert.equal(wing3!.length, 256);
  assert.ok(Math.abs(Math.hypot(...wing3!) - 1) < 1e-5);
  // The same texts keep apart in both spaces; v3 keeps unrelated texts further apart, with no shared stems to match.
  assert.ok(
    cosineSimilarity(wing3!, bread3!) < cosineSimilarity(wing!, bread!),
    `${cosineSimilarity(wing3!, bread3!)} vs ${cosineSimilarity(wing!, bread!)}`,
  );
  const [query3] = await current.embed({ texts: ["swept wing boundary layer"], inputType: "query" });
  assert.ok(cosineSimilarity(query3!, wing3!) > cosineSimilarity(query3!, bread3!) + 0.3);
});
