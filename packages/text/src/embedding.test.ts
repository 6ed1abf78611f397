import { test } from "node:test";
import assert from "node:assert/strict";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cosineSimilarity, embedText, toHashedWordVector } from "./embedding.js";
import { loadWordVectors } from "./word-vector-cache.js";

// Shared across test runs so only the first run pays for building the cache from the 300 MB source.
const cacheDir = process.env.CONTEXT_HUB_TEST_CACHE_DIR ?? join(tmpdir(), "context-hub-test-cache");
const vectors = await loadWordVectors(cacheDir);

const similarity = (left: string, right: string) =>
  cosineSimilarity(embedText(left, vectors), embedText(right, vectors));

test("the built-in vectors are GloVe 100-d, frequency-ordered, and loaded once per process", async () => {
  assert.equal(vectors.dimension, 100);
  assert.ok(vectors.size > 300_000);
  assert.equal(vectors.rank("the"), 0);
  assert.ok(vectors.rank("database")! < vectors.rank("postgres")!);
  assert.equal(await loadWordVectors(cacheDir), vectors);
  assert.ok(
    cosineSimilarity(vectors.lookup("cat")!, vectors.lookup("dog")!) >
      cosineSimilarity(vectors.lookup("cat")!, vectors.lookup("parliament")!),
  );
});

test("related sentences score higher than unrelated ones", () => {
  const pairs: [string, string, string][] = [
    [
      "The database migration failed because the index was missing.",
      "Postgres schema upgrade broke since an index did not exist.",
      "My cat likes to sleep on the sofa in the afternoon.",
    ],
    [
      "My cat likes to sleep on the sofa in the afternoon.",
      "The kitten naps on the couch after lunch.",
      "The database migration failed because the index was missing.",
    ],
    [
      "The striker scored a late goal and the team won the match.",
      "Football fans celebrated the victory in the stadium.",
      "Interest rates rose as the central bank fought inflation.",
    ],
  ];
  for (const [anchor, related, unrelated] of pairs) {
    const near = similarity(anchor, related);
    const far = similarity(anchor, unrelated);
    // Paraphrases sharing no word meet on meaning alone (the exact-form share of each term does not help them), hence 0.1.
    assert.ok(near > far + 0.1, `${anchor} | related ${near.toFixed(2)} vs unrelated ${far.toFixed(2)}`);
  }
});

test("unrelated sentences are near orthogonal and no embedding keeps the common component", () => {
  assert.ok(
    Math.abs(
      similarity(
        "The striker scored a late goal and the team won the match.",
        "Interest rates rose as the central bank fought inflation.",
      ),
    ) < 0.25,
  );
  for (const text of ["the of and", "Knead the dough and bake the bread.", "qdrantclientx"]) {
    const vector = embedText(text, vectors);
    const projection = vector.reduce((sum, value, d) => sum + value * vectors.commonDirection[d]!, 0);
    assert.ok(Math.abs(projection) < 1e-5, `${text}: ${projection}`);
  }
});

test("identical text gives an identical unit vector; function words barely matter", () => {
  const text = "Rerank passages by query term coverage and proximity.";
  const first = embedText(text, vectors);
  assert.deepEqual(embedText(text, vectors), first);
  assert.equal(first.length, 100);
  assert.ok(Math.abs(Math.hypot(...first) - 1) < 1e-5);
  assert.ok(similarity(text, `The ${text} it is.`) > 0.95);
});

test("unknown words fall back to deterministic n-gram vectors that keep spelling variants close", () => {
  assert.deepEqual(toHashedWordVector("qdrantclientx", 100), toHashedWordVector("qdrantclientx", 100));
  const variant = cosineSimilarity(
    toHashedWordVector("contexthubstore", 100),
    toHashedWordVector("contexthubstores", 100),
  );
  const unrelated = cosineSimilarity(toHashedWordVector("contexthubstore", 100), toHashedWordVector("zwieback", 100));
  assert.ok(variant > 0.6, `variant ${variant}`);
  assert.ok(Math.abs(unrelated) < 0.3, `unrelated ${unrelated}`);
  const unknownOnly = embedText("qdrantclientx", vectors);
  assert.notDeepEqual(unknownOnly, embedText("", vectors), "an unknown word is not treated as no word");
  assert.ok(similarity("qdrantclientx", "qdrantclientz") > 0.5);
  assert.ok(Math.abs(similarity("qdrantclientx", "zorblattwump")) < 0.3);
  assert.ok(
    similarity("configure qdrantclientx retries", "qdrantclientx retry settings") >
      similarity("configure qdrantclientx retries", "bake bread with flour"),
  );
  assert.ok(
    similarity("getUserName returns the name", "the get_user_name helper") >
      similarity("getUserName returns the name", "rain fell over the valley"),
  );
});

test("empty and symbol-only texts embed to one fixed finite unit vector", () => {
  const empty = embedText("", vectors);
  assert.deepEqual(embedText("  ?! -- ", vectors), empty);
  assert.ok(Math.abs(Math.hypot(...empty) - 1) < 1e-5);
  for (const text of ["", "a", "the the the", "😀", "x".repeat(10_000), "Ünïcödé 東京"]) {
    const vector = embedText(text, vectors);
    assert.ok(vector.every(Number.isFinite), text.slice(0, 20));
    assert.ok(Math.abs(Math.hypot(...vector) - 1) < 1e-5, text.slice(0, 20));
  }
});

test("a compound, a possessive or an identifier meets the same words written apart", () => {
  assert.ok(similarity("boundary-layer heat-transfer", "boundary layer heat transfer") > 0.999);
  assert.ok(similarity("the library's catalogue", "library catalogue") > 0.999);
  assert.ok(similarity("getUserName", "get_user_name") > 0.999);
  assert.ok(
    similarity("boundary-layer separation", "boundary layer separation") >
      similarity("boundary-layer separation", "surface flow separation"),
  );
});

test("stop words, numbers and single letters do not move a text that has words of meaning", () => {
  assert.ok(
    similarity("the pressure on a wing at 30 degrees of incidence in 1958", "pressure wing degrees incidence") > 0.999,
  );
  // A text with nothing else is embedded from them, so it keeps a direction of its own.
  const empty = embedText("", vectors);
  for (const text of ["404", "the of and", "x"]) assert.notDeepEqual(embedText(text, vectors), empty, text);
  assert.ok(similarity("error 404", "error 500") > 0.999);
  assert.ok(similarity("404", "500") < 0.5);
});

test("rarer words weigh more, and sharing a query's exact words ranks above sharing only its subject", () => {
  assert.ok(similarity("supersonic system", "supersonic") > similarity("supersonic system", "system"));
  const query = "hypersonic flow over a blunt cone";
  const sameWords = similarity(query, "measurements of hypersonic flow past blunt cones");
  const sameSubject = similarity(query, "supersonic stream around a pointed body");
  const unrelated = similarity(query, "the committee approved the annual budget");
  assert.ok(sameWords > sameSubject && sameSubject > unrelated, `${sameWords} > ${sameSubject} > ${unrelated}`);
});

test("unrelated texts are near orthogonal on average: no common component survives", () => {
  const texts = [
    "Knead the dough and bake the bread.",
    "The striker scored a late goal.",
    "Interest rates rose again.",
    "The kitten naps on the couch.",
    "Postgres schema upgrade broke.",
    "Rain fell over the valley all night.",
    "The orchestra tuned before the concert.",
    "Glaciers retreat as the climate warms.",
  ];
  const embedded = texts.map((text) => embedText(text, vectors));
  let sum = 0;
  let pairs = 0;
  for (let i = 0; i < embedded.length; i++)
    for (let j = i + 1; j < embedded.length; j++, pairs++) sum += cosineSimilarity(embedded[i]!, embedded[j]!);
  assert.ok(Math.abs(sum / pairs) < 0.08, `mean cosine ${sum / pairs}`);
});

test("the exact-form vectors are independent of the spelling vectors of the same word", () => {
  const word = "qdrantclientx";
  assert.ok(Math.abs(cosineSimilarity(toHashedWordVector(word, 100), toHashedWordVector(word, 100, 0x811c9d5c))) < 0.3);
  assert.deepEqual(toHashedWordVector(word, 100, 7), toHashedWordVector(word, 100, 7));
});

test("lexicalDimensions appends exact-form dimensions: longer unit vectors, the same meaning part's direction, and shared stems counted there alone", () => {
  const text = "Laminar boundary layers separate ahead of the flap.";
  const mixed = embedText(text, vectors);
  const apart = embedText(text, vectors, { lexicalDimensions: 156 });
  assert.equal(mixed.length, 100);
  assert.equal(apart.length, 256);
  assert.ok(Math.abs(Math.hypot(...apart) - 1) < 1e-5);
  assert.deepEqual(embedText(text, vectors, { lexicalDimensions: 156 }), apart, "deterministic");
  assert.deepEqual(embedText(text, vectors, { lexicalDimensions: 0 }), mixed, "0 is the mixed layout");
  // A text with no word in common with another shares nothing in the exact-form dimensions.
  const other = embedText("Sourdough bread rises overnight.", vectors, { lexicalDimensions: 156 });
  const lexicalCosine = cosineSimilarity(apart.subarray(100), other.subarray(100));
  const sameStems = cosineSimilarity(
    apart.subarray(100),
    embedText("the boundary layer separates at the flaps", vectors, { lexicalDimensions: 156 }).subarray(100),
  );
  assert.ok(sameStems > lexicalCosine + 0.3, `${sameStems} vs ${lexicalCosine}`);
  assert.throws(
    () => embedText(text, vectors, { lexicalDimensions: -1 }),
    /lexicalDimensions must be a non-negative integer, got -1/,
  );
  assert.throws(() => embedText(text, vectors, { lexicalDimensions: 1.5 }), /got 1\.5/);
});
