import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isContextHubError } from "@context-hub/common";
import { toWordVectorCachePath } from "@context-hub/text";
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
    assert.equal(error.message.startsWith(`builtin embeddings (model ${builtinEmbeddingModel}) failed: the word vectors in ${cacheDir} could not be loaded: EISDIR`), true, error.message);
    assert.equal(error.remedy, "check EMBEDDER_CACHE_DIR: a directory this process can read and write");
    return true;
  });
  assert.equal(provider.isReady(), false);
});
