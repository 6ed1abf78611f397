import { after, test } from "node:test";
import assert from "node:assert/strict";
import { isContextHubError } from "@context-hub/common";
import { chunkText, embedText, loadWordVectors, toDefaultCacheDir } from "@context-hub/text";
import {
  builtinEmbeddingModel,
  builtinEmbeddingModels,
  createBuiltinEmbeddingProvider,
} from "./builtin-embedding-provider.js";
import { createEmbedder } from "./embedder.js";
import { createEmbedderTextWork } from "./embedder-text-work.js";

const cacheDir = toDefaultCacheDir(process.env);
const work = createEmbedderTextWork({ workers: 1, budgetMs: 120_000, cacheDir });
const tight = createEmbedderTextWork({ workers: 1, budgetMs: 10, cacheDir });
after(() => Promise.all([work.close(), tight.close()]));

const report = (chars: number) =>
  "The survey measured the flow at each gauge twice a day; the upstream readings drifted after rain. "
    .repeat(Math.ceil(chars / 98))
    .slice(0, chars);

test("a long text is chunked and embedded in a worker, with the results of the calling thread", async () => {
  const text = report(50_000);
  const provider = createBuiltinEmbeddingProvider({ cacheDir, work });
  const embedder = createEmbedder({ provider, work, chunkSize: 1500, chunkOverlap: 200, maxTextChars: 1_000_000 });
  const [chunks] = await embedder.embedDocuments([text]);
  const vectors = await loadWordVectors(cacheDir);
  const layout = { lexicalDimensions: builtinEmbeddingModels[builtinEmbeddingModel].lexicalDimensions };
  // The report repeats itself: of chunks embedded alike, the first is kept.
  const seen = new Set<string>();
  const expected = chunkText(text, { size: 1500, overlap: 200 }).filter((chunk) => {
    const key = embedText(text.slice(chunk.start, chunk.end), vectors, layout).join();
    return !seen.has(key) && seen.add(key);
  });
  assert.ok(expected.length > 1);
  assert.deepEqual(
    chunks!.map(({ ordinal, start, end }) => ({ ordinal, start, end })),
    expected.map(({ ordinal, start, end }) => ({ ordinal, start, end })),
  );
  chunks!.forEach((chunk) =>
    assert.deepEqual(chunk.vector, embedText(text.slice(chunk.start, chunk.end), vectors, layout)),
  );
});

test("chunking that outlives its budget fails with TEXT_BUDGET_EXCEEDED naming the chunk stage", async () => {
  const provider = createBuiltinEmbeddingProvider({ cacheDir, work: tight });
  // Chunking 1M characters takes about 10 ms on a quick host, so the text is 20M: about 0.5 s of chunking, far past the budget.
  const embedder = createEmbedder({
    provider,
    work: tight,
    chunkSize: 1500,
    chunkOverlap: 200,
    maxTextChars: 20_000_000,
  });
  await assert.rejects(embedder.embedDocuments([report(20_000_000)]), (error: unknown) => {
    assert.ok(isContextHubError(error));
    assert.equal(error.code, "TEXT_BUDGET_EXCEEDED");
    assert.match(error.message, /^chunk: the text took longer than its 10 ms budget/);
    assert.match(error.remedy ?? "", /EMBEDDER_TEXT_BUDGET_MS/);
    return true;
  });
});

test("built-in embedding that outlives its budget fails naming the embed stage; a search query is embedded without a worker", async () => {
  const provider = createBuiltinEmbeddingProvider({ cacheDir, work: tight });
  await provider.warm();
  const texts = Array.from({ length: 400 }, (_, index) => `${report(1400)} ${index}`);
  await assert.rejects(
    provider.embed({ texts, inputType: "document" }),
    (error: unknown) =>
      isContextHubError(error) &&
      error.code === "TEXT_BUDGET_EXCEEDED" &&
      // The pool stops it at the budget, or its pace refuses it a moment before (embedding-pace.ts).
      /^embed: (the text took longer than its 10 ms budget|at the pace of .*, over its 10 ms budget)/.test(
        error.message,
      ),
  );
  const [query] = await provider.embed({ texts: ["gauge drift after rain"], inputType: "query" });
  assert.deepEqual(
    query,
    embedText("gauge drift after rain", await loadWordVectors(cacheDir), {
      lexicalDimensions: builtinEmbeddingModels[builtinEmbeddingModel].lexicalDimensions,
    }),
  );
});
