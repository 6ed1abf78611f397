import { after, test } from "node:test";
import assert from "node:assert/strict";
import { isContextHubError } from "@context-hub/common";
import { chunkText, type TextChunk } from "@context-hub/text";
import { createEmbedder } from "./embedder.js";
import { createEmbedderTextWork } from "./embedder-text-work.js";
import type { EmbeddingProvider } from "./embedding-provider.js";

const work = createEmbedderTextWork({ workers: 1, budgetMs: 60_000, cacheDir: undefined });
after(() => work.close());

/** A vector per text: its length and a 24-bit hash of its characters (distinct for the texts these tests embed). */
function byContent(text: string): Float32Array {
  let hash = 0;
  for (let i = 0; i < text.length; i++) hash = (Math.imul(hash, 31) + text.charCodeAt(i)) & 0xffffff;
  return Float32Array.of(text.length, hash);
}

function createRecordingProvider(vectorOf = byContent) {
  const calls: string[][] = [];
  const inputTypes: string[] = [];
  const provider: EmbeddingProvider = {
    describe: () => ({ provider: "fake", model: "fake-2d", dimension: 2 }),
    async embed({ texts, inputType }) {
      calls.push(texts);
      inputTypes.push(inputType);
      return texts.map(vectorOf);
    },
    warm: async () => {},
    isReady: () => true,
    close: async () => {},
  };
  return { provider, calls, inputTypes };
}

test("embedDocuments chunks every text and embeds all chunks in one provider call", async () => {
  const { provider, calls } = createRecordingProvider();
  const embedder = createEmbedder({ provider, work, chunkSize: 100, chunkOverlap: 20, maxTextChars: 10_000 });
  const long = Array.from({ length: 20 }, (_, n) => `Sentence number ${n * 37} is here. `).join("");
  const documents = await embedder.embedDocuments(["short", "", long]);
  assert.equal(calls.length, 1);
  assert.equal(documents.length, 3);
  assert.deepEqual(
    documents[0]!.map((c) => [c.ordinal, c.start, c.end]),
    [[0, 0, 5]],
  );
  assert.deepEqual(documents[1], []);
  const chunks = documents[2]!;
  assert.ok(chunks.length > 5);
  assert.equal(calls[0]!.length, 1 + chunks.length);
  chunks.forEach((chunk, index) => {
    assert.equal(chunk.vector[0], chunk.end - chunk.start, "each chunk gets its own text's vector");
    assert.equal(calls[0]![1 + index], long.slice(chunk.start, chunk.end));
  });
});

/** The ordinal of the first chunk of each length, in order: what is kept when vectors depend on length alone. */
function firstOfEachLength(chunks: readonly TextChunk[]): number[] {
  const first = new Map<number, number>();
  for (const chunk of chunks)
    if (!first.has(chunk.end - chunk.start)) first.set(chunk.end - chunk.start, chunk.ordinal);
  return [...first.values()].sort((a, b) => a - b);
}

test("each distinct chunk text is embedded once, and a chunk repeating an earlier chunk's vector is left out", async () => {
  // Vectors by length alone: texts of one length embed alike, as texts without a known word do in the built-in model.
  const { provider, calls } = createRecordingProvider((text) => Float32Array.of(text.length, 1));
  const embedder = createEmbedder({ provider, work, chunkSize: 100, chunkOverlap: 20, maxTextChars: 100_000 });
  const dots = ".".repeat(10_000);
  const [dotChunks, again] = await embedder.embedDocuments([dots, dots]);
  const chunked = chunkText(dots, { size: 100, overlap: 20 });
  assert.ok(chunked.length > 100);
  // Every full-size chunk of dots has one text; the last may be shorter, another text with its own vector.
  assert.deepEqual(calls, [[...new Set(chunked.map((chunk) => dots.slice(chunk.start, chunk.end)))]]);
  assert.deepEqual(
    dotChunks!.map((chunk) => chunk.ordinal),
    firstOfEachLength(chunked),
  );
  assert.deepEqual(again, dotChunks, "the second text keeps its own first chunk of each vector");

  // Distinct texts that embed alike (here: equal lengths) keep their first chunk only; distinct vectors all stay.
  calls.length = 0;
  const words = ["alpha", "bravo", "delta", "gamma"].map((word) => `${word} `.repeat(30)).join("\n\n");
  const [kept] = await embedder.embedDocuments([words]);
  const all = chunkText(words, { size: 100, overlap: 20 });
  assert.deepEqual(
    kept!.map((chunk) => chunk.ordinal),
    firstOfEachLength(all),
  );
  assert.ok(kept!.length < all.length);
  assert.equal(calls[0]!.length, new Set(all.map((chunk) => words.slice(chunk.start, chunk.end))).size);
});

test('documents are embedded as "document" and queries as "query"', async () => {
  const { provider, inputTypes } = createRecordingProvider();
  const embedder = createEmbedder({ provider, work, chunkSize: 100, chunkOverlap: 20, maxTextChars: 10_000 });
  await embedder.embedDocuments(["a stored text"]);
  await embedder.embedQueries(["a search"]);
  assert.deepEqual(inputTypes, ["document", "query"]);
});

test("texts over the limit are rejected as INVALID_ARGUMENT before the provider is called", async () => {
  const { provider, calls } = createRecordingProvider();
  const embedder = createEmbedder({ provider, work, chunkSize: 100, chunkOverlap: 20, maxTextChars: 10 });
  for (const call of [
    () => embedder.embedDocuments(["ok", "x".repeat(11)]),
    () => embedder.embedQueries(["x".repeat(11)]),
  ]) {
    await assert.rejects(
      call(),
      (error: unknown) =>
        isContextHubError(error) &&
        error.code === "INVALID_ARGUMENT" &&
        /texts\[\d\] has 11 characters/.test(error.message),
    );
  }
  assert.equal(calls.length, 0);
});

test("describe reports the provider's model and the chunking", () => {
  const { provider } = createRecordingProvider();
  assert.deepEqual(createEmbedder({ provider, work, chunkSize: 100, chunkOverlap: 20, maxTextChars: 10 }).describe(), {
    provider: "fake",
    model: "fake-2d",
    dimension: 2,
    chunkSize: 100,
    chunkOverlap: 20,
  });
});

test("a provider answering with the wrong number of vectors is a PROVIDER_ERROR naming provider, model and the counts", async () => {
  const { provider } = createRecordingProvider();
  const oneShort: EmbeddingProvider = {
    ...provider,
    embed: async ({ texts }) => texts.slice(1).map(() => Float32Array.of(1, 0)),
  };
  const embedder = createEmbedder({ provider: oneShort, work, chunkSize: 100, chunkOverlap: 20, maxTextChars: 10_000 });
  await assert.rejects(embedder.embedQueries(["first query", "second query"]), (error: unknown) => {
    assert.ok(isContextHubError(error));
    assert.equal(error.code, "PROVIDER_ERROR");
    assert.equal(error.message, "fake embeddings (model fake-2d) failed: 1 vectors for 2 texts");
    assert.deepEqual(error.details, { provider: "fake", model: "fake-2d" });
    return true;
  });
});
