import { test } from "node:test";
import assert from "node:assert/strict";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadWordVectors } from "@context-hub/text";
import { scoreRelevance } from "./relevance.js";

// Shared across test runs so only the first run pays for building the word-vector cache.
const vectors = await loadWordVectors(process.env.CONTEXT_HUB_TEST_CACHE_DIR ?? join(tmpdir(), "context-hub-test-cache"));

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
  assert.equal(postgres!.coverage, 0, "no query word occurs in the passage");
  assert.ok(postgres!.score > football!.score && postgres!.score > bread!.score);
});

test("coverage weighs rare terms more, within the candidate set", () => {
  const scores = scoreRelevance("team index", ["the team met", "the team met again", "an index helps"], vectors);
  assert.ok(scores[2]!.coverage > scores[0]!.coverage, "index appears in fewer passages than team");
});

test("proximity and exact phrases reward terms that appear together", () => {
  const [together, apart] = scoreRelevance(
    "connection pool size",
    ["Raise the connection pool size when requests queue.", "The connection was fine. Later we looked at the pool. The size of the log grew."],
    vectors,
  );
  assert.equal(together!.coverage, apart!.coverage);
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
