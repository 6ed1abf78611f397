import { test } from "node:test";
import assert from "node:assert/strict";
import { isContextHubError } from "@context-hub/common";
import { createReranker } from "./reranker.js";
import type { RerankProvider } from "./rerank-provider.js";

function createFixedProvider(scores: number[]): RerankProvider {
  return {
    describe: () => ({ provider: "fixed", model: "m" }),
    score: async (_query, passages) => passages.map((_, index) => scores[index] ?? 0),
    warm: async () => {},
    isReady: () => true,
    close: async () => {},
  };
}

const passages = ["a", "b", "c", "d"].map((id) => ({ id, text: `text ${id}` }));

test("results are sorted best first with ties in request order, and top_n truncates", async () => {
  const reranker = createReranker({
    provider: createFixedProvider([0.2, 0.9, 0.2, 0.5]),
    maxPassages: 10,
    maxTextChars: 100,
  });
  assert.deepEqual(
    (await reranker.rerank("q", passages, 0)).map((r) => [r.id, r.index, r.score]),
    [
      ["b", 1, 0.9],
      ["d", 3, 0.5],
      ["a", 0, 0.2],
      ["c", 2, 0.2],
    ],
  );
  assert.deepEqual(
    (await reranker.rerank("q", passages, 2)).map((r) => r.id),
    ["b", "d"],
  );
  assert.equal((await reranker.rerank("q", passages, 10)).length, 4);
  assert.deepEqual(await reranker.rerank("q", [], 3), []);
});

test("bad requests are INVALID_ARGUMENT", async () => {
  const reranker = createReranker({ provider: createFixedProvider([]), maxPassages: 2, maxTextChars: 10 });
  const invalid = (error: unknown) => isContextHubError(error) && error.code === "INVALID_ARGUMENT";
  await assert.rejects(reranker.rerank("  ?! ", passages.slice(0, 1), 0), invalid);
  await assert.rejects(reranker.rerank("q", passages, 0), invalid);
  await assert.rejects(reranker.rerank("q", [{ id: "x", text: "y".repeat(11) }], 0), invalid);
  await assert.rejects(reranker.rerank("q".repeat(11), [], 0), invalid);
});

test("a provider returning the wrong number of scores is an internal error, not a silent misranking", async () => {
  const reranker = createReranker({ provider: createFixedProvider([1]), maxPassages: 10, maxTextChars: 100 });
  const broken: RerankProvider = { ...createFixedProvider([]), score: async () => [1, Number.NaN] };
  await assert.rejects(
    createReranker({ provider: broken, maxPassages: 10, maxTextChars: 100 }).rerank("q", passages.slice(0, 2), 0),
    /finite: false/,
  );
  assert.equal((await reranker.rerank("q", passages.slice(0, 1), 0)).length, 1);
});
