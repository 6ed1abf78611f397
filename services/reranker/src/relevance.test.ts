import { test } from "node:test";
import assert from "node:assert/strict";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadWordVectors } from "@context-hub/text";
import { scoreRelevance } from "./relevance.js";

// Shared across test runs so only the first run pays for building the word-vector cache.
const vectors = await loadWordVectors(
  process.env.CONTEXT_HUB_TEST_CACHE_DIR ?? join(tmpdir(), "context-hub-test-cache"),
);

const passages = [
  "Bake the bread at 220 degrees until the crust is golden.",
  "To speed up slow Postgres queries, add an index on the filtered column and check the plan.",
  "The football team won the championship after a late goal.",
  "Queries were slow, so the database team added indexes and latency improved.",
];

test("an obviously relevant passage outranks irrelevant ones, and scores stay in [0, 1]", () => {
  const scores = scoreRelevance("slow postgres query index", passages, vectors);
  const best = scores.indexOf(scores.reduce((top, s) => (s.score > top.score ? s : top)));
  assert.equal(best, 1);
  assert.ok(scores[3]!.score > scores[0]!.score && scores[3]!.score > scores[2]!.score);
  for (const s of scores) for (const value of Object.values(s)) assert.ok(value >= 0 && value <= 1, JSON.stringify(s));
});

test("semantic similarity ranks a passage with no shared words above unrelated ones", () => {
  const [bread, postgres, football] = scoreRelevance("make sql lookups faster", passages.slice(0, 3), vectors);
  assert.equal(postgres!.bm25, 0, "no query word occurs in the passage");
  assert.ok(postgres!.semantic > football!.semantic && postgres!.semantic > bread!.semantic);
});

test("bm25 weighs rare terms more, within the candidate set", () => {
  const scores = scoreRelevance("team index", ["the team met", "the team met there", "an index helps"], vectors);
  assert.ok(scores[2]!.bm25 > scores[0]!.bm25, "index appears in fewer passages than team");
});

test("bm25's statistics come from the passages of the call alone", () => {
  const indexOnly = "an index helps here";
  const queryOnly = "the query helps here";
  const [indexAmongIndexes, queryAmongIndexes] = scoreRelevance(
    "index query",
    [indexOnly, queryOnly, "an index on a column", "the index was rebuilt"],
    vectors,
  );
  assert.ok(queryAmongIndexes!.bm25 > indexAmongIndexes!.bm25, "index is common in this call, so query weighs more");
  const [indexAmongQueries, queryAmongQueries] = scoreRelevance(
    "index query",
    [indexOnly, queryOnly, "a query on a column", "the query was rewritten"],
    vectors,
  );
  assert.ok(indexAmongQueries!.bm25 > queryAmongQueries!.bm25, "and the other way round when query is the common word");
});

test("bm25 saturates term frequency and normalises by length, and stays below 1", () => {
  const [once, twice, thrice, diluted] = scoreRelevance(
    "turbulence",
    [
      "turbulence in the boundary layer",
      "turbulence and turbulence in the layer",
      "turbulence turbulence turbulence in a layer",
      `turbulence ${"in a long boundary layer over the wing ".repeat(8)}`,
    ],
    vectors,
  );
  assert.ok(twice!.bm25 > once!.bm25 && thrice!.bm25 > twice!.bm25);
  assert.ok(thrice!.bm25 - twice!.bm25 < twice!.bm25 - once!.bm25, "each further occurrence adds less");
  assert.ok(diluted!.bm25 < once!.bm25, "one occurrence in a long passage counts less than in a short one");
  for (const breakdown of [once, twice, thrice, diluted]) assert.ok(breakdown!.bm25 < 1);
});

test("a query word repeated counts again", () => {
  const passages = ["shock waves at the leading edge", "heat transfer at the leading edge"];
  const plain = scoreRelevance("shock heat", passages, vectors);
  const repeated = scoreRelevance("shock shock heat", passages, vectors);
  assert.ok(Math.abs(plain[0]!.bm25 - plain[1]!.bm25) < 1e-12);
  assert.ok(repeated[0]!.bm25 > repeated[1]!.bm25);
});

test("proximity and exact phrases reward terms that appear together", () => {
  const [together, apart] = scoreRelevance(
    "connection pool size",
    [
      "Raise the connection pool size when requests queue.",
      "The connection was fine. Later we looked at the pool. The size of the log grew.",
    ],
    vectors,
  );
  assert.ok(Math.abs(together!.bm25 - apart!.bm25) < together!.bm25, "both hold every word");
  assert.equal(together!.phrase, 1);
  assert.ok(together!.proximity === 1 && apart!.proximity < 0.5);
  assert.ok(together!.score > apart!.score);
});

test("scoring is deterministic and a passage without words scores 0", () => {
  const first = scoreRelevance("golden crust", [...passages, "", "?!"], vectors);
  assert.deepEqual(scoreRelevance("golden crust", [...passages, "", "?!"], vectors), first);
  assert.equal(first[4]!.score, 0);
  assert.equal(first[5]!.score, 0);
});
