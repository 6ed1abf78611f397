import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { toWordVectorCachePath } from "@context-hub/text";
import { builtinRerankModel, createBuiltinRerankProvider } from "./builtin-rerank-provider.js";

test("word vectors that cannot be loaded fail warm-up naming the provider, the model, the directory and the cause", async (t) => {
  const cacheDir = mkdtempSync(join(tmpdir(), "context-hub-reranker-cache-"));
  t.after(() => rmSync(cacheDir, { recursive: true, force: true }));
  mkdirSync(toWordVectorCachePath(cacheDir));
  const provider = createBuiltinRerankProvider({ cacheDir });
  await assert.rejects(provider.warm(), {
    name: "ContextHubError",
    code: "PROVIDER_ERROR",
    message: new RegExp(
      `^builtin rerank \\(model ${builtinRerankModel}\\) failed: the word vectors in ${cacheDir.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")} could not be loaded: EISDIR`,
    ),
    remedy: "check RERANKER_CACHE_DIR: a directory this process can read and write",
  });
});
