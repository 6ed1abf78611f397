import { test } from "node:test";
import assert from "node:assert/strict";
import {
  candidatesToCount,
  feedbackShares,
  selectExpansionTerms,
  wideningLexemes,
  type FeedbackTerm,
} from "./bm25-feedback.js";
import { idf } from "./bm25-sql.js";

const term = (lexeme: string, feedbackWeight: number, frequency: number, repeats = 0): FeedbackTerm => ({
  lexeme,
  feedbackWeight,
  repeats,
  frequency,
});
const weightOf = (terms: { lexeme: string; weight: number }[], lexeme: string) =>
  terms.find((item) => item.lexeme === lexeme)?.weight;

test("expansion terms are the feedback words with the greatest feedback weight × idf, at most `terms` of them", () => {
  const terms = [
    term("wing", 0.1, 10, 1),
    // Common in the feedback entries but in almost every entry: a low idf keeps it out.
    term("flow", 0.2, 990),
    term("vortex", 0.05, 20),
    term("shock", 0.04, 5),
    term("panel", 0.01, 50),
  ];
  const { expansion } = selectExpansionTerms(terms, 1_000, { documents: 10, terms: 3, queryWeight: 0.5 });
  const scored = terms
    .map((item) => ({ lexeme: item.lexeme, score: item.feedbackWeight * idf(1_000, item.frequency) }))
    .sort((a, b) => b.score - a.score);
  assert.deepEqual(
    expansion.map((item) => item.lexeme),
    scored.slice(0, 3).map((item) => item.lexeme),
  );
  assert.ok(!expansion.some((item) => item.lexeme === "flow"), JSON.stringify(expansion));
  assert.ok(
    Math.abs(expansion.reduce((sum, item) => sum + item.weight, 0) - 1) < 1e-12,
    "the expansion model sums to 1",
  );
  for (const [index, item] of expansion.entries()) {
    const expected = scored[index]!.score / scored.slice(0, 3).reduce((sum, row) => sum + row.score, 0);
    assert.ok(Math.abs(item.weight - expected) < 1e-12, `${item.lexeme}: ${item.weight} vs ${expected}`);
  }
});

test("the expanded query mixes the original words and the expansion by queryWeight, scaled to the original word count", () => {
  const terms = [term("wing", 0.3, 10, 2), term("lift", 0, 30, 1), term("vortex", 0.2, 10)];
  const { query, expansion } = selectExpansionTerms(terms, 100, { documents: 10, terms: 5, queryWeight: 0.25 });
  const share = (lexeme: string) => weightOf(expansion, lexeme) ?? 0;
  // Original model: wing 2/3, lift 1/3; the mix is scaled back by 3 words.
  assert.ok(Math.abs(weightOf(query, "wing")! - 3 * (0.25 * (2 / 3) + 0.75 * share("wing"))) < 1e-12);
  assert.ok(
    Math.abs(weightOf(query, "lift")! - 3 * (0.25 * (1 / 3))) < 1e-12,
    "an original word no feedback entry holds keeps only its share of the query",
  );
  assert.ok(Math.abs(weightOf(query, "vortex")! - 3 * 0.75 * share("vortex")) < 1e-12);
  assert.ok(Math.abs(query.reduce((sum, item) => sum + item.weight, 0) - 3) < 1e-12);
  assert.deepEqual(
    query.map((item) => item.lexeme),
    [...query].sort((a, b) => b.weight - a.weight).map((item) => item.lexeme),
    "heaviest first",
  );
});

test("with queryWeight 1 the expanded query is the original one: the words, their repeats, nothing added", () => {
  const terms = [term("wing", 0.3, 10, 2), term("lift", 0, 30, 1), term("vortex", 0.2, 10)];
  const { query } = selectExpansionTerms(terms, 100, { documents: 10, terms: 5, queryWeight: 1 });
  assert.deepEqual(query, [
    { lexeme: "wing", weight: 2 },
    { lexeme: "lift", weight: 1 },
  ]);
});

test("nothing to expand with (no feedback words, or only words in every entry) leaves the original query", () => {
  const original = [term("wing", 0, 10, 1)];
  assert.deepEqual(selectExpansionTerms(original, 100, { documents: 10, terms: 5, queryWeight: 0.5 }), {
    query: [{ lexeme: "wing", weight: 1 }],
    expansion: [],
  });
  // A word in all 100 entries still has a small positive idf (BM25's +1), so it may be chosen; a zero feedback weight never is.
  const { expansion } = selectExpansionTerms([...original, term("flow", 0, 50)], 100, {
    documents: 10,
    terms: 5,
    queryWeight: 0.5,
  });
  assert.deepEqual(expansion, []);
});

test("ties between expansion terms go to the smaller lexeme, so selection is deterministic", () => {
  const terms = [term("b", 0.1, 5), term("a", 0.1, 5), term("c", 0.1, 5)];
  assert.deepEqual(
    selectExpansionTerms(terms, 50, { documents: 10, terms: 2, queryWeight: 0.5 }).expansion.map((item) => item.lexeme),
    ["a", "b"],
  );
});

test("feedback entries weigh by their share of the first pass's score", () => {
  assert.deepEqual(feedbackShares([3, 1]), [0.75, 0.25]);
  assert.deepEqual(feedbackShares([2, 0, -1]), [1, 0, 0]);
  assert.deepEqual(feedbackShares([0, 0]), [0.5, 0.5]);
  assert.deepEqual(feedbackShares([]), []);
});

test("counting only the candidates candidatesToCount names chooses exactly the expansion that knowing every frequency would", () => {
  // A seeded generator, so a failure repeats.
  let seed = 7;
  const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  const documents = 5_000;
  const options = { documents: 10, terms: 5, queryWeight: 0.5 };
  let skipped = 0;
  for (let round = 0; round < 200; round++) {
    const candidates = Array.from({ length: 40 }, (_, index) => {
      const holders = 1 + Math.floor(random() * 10);
      // Common words: heavy in the feedback entries and in most entries; rare ones light and in few.
      const frequency = random() < 0.3 ? holders + Math.floor(random() * 4_000) : holders + Math.floor(random() * 30);
      return { lexeme: `w${index}`, feedbackWeight: random() * 0.1, holders, frequency };
    });
    const all = new Map(candidates.map((candidate) => [candidate.lexeme, candidate.frequency]));
    // Some frequencies are already kept: the query's words and words a recent search counted.
    const kept = new Map(
      candidates.filter(() => random() < 0.5).map((candidate) => [candidate.lexeme, candidate.frequency]),
    );
    const counted = new Map(kept);
    for (const lexeme of candidatesToCount(candidates, kept, documents, options))
      counted.set(lexeme, all.get(lexeme) ?? 0);
    const asTerms = (known: ReadonlyMap<string, number>) =>
      candidates
        .filter((candidate) => known.has(candidate.lexeme))
        .map((candidate) => term(candidate.lexeme, candidate.feedbackWeight, known.get(candidate.lexeme) ?? 0));
    assert.deepEqual(
      selectExpansionTerms(asTerms(counted), documents, options),
      selectExpansionTerms(asTerms(all), documents, options),
      `round ${round}`,
    );
    assert.deepEqual(
      candidatesToCount(candidates, counted, documents, options),
      [],
      "after one count nothing more is needed",
    );
    skipped += candidates.length - counted.size;
  }
  assert.ok(skipped > 0, "some candidates were never counted");
});

test("with nothing known every candidate is counted", () => {
  const candidates = [
    { lexeme: "wing", feedbackWeight: 0.2, holders: 3 },
    { lexeme: "flow", feedbackWeight: 0.1, holders: 10 },
    { lexeme: "nothing", feedbackWeight: 0, holders: 1 },
  ];
  assert.deepEqual(
    candidatesToCount(candidates, new Map(), 100, { documents: 10, terms: 20, queryWeight: 0.5 }),
    ["wing", "flow"],
    "a word of weight 0 can never be chosen",
  );
});

test("only the lightest added words, whose bounds sum below the threshold, are left out of the match; the query's own words never", () => {
  const query = [
    { lexeme: "wing", weight: 2 },
    { lexeme: "vortex", weight: 0.5 },
    { lexeme: "flow", weight: 0.2 },
    { lexeme: "panel", weight: 0.1 },
    { lexeme: "lift", weight: 0.05 },
  ];
  const bound = (term: { weight: number }) => term.weight;
  const original = new Set(["wing", "lift"]);
  assert.deepEqual(
    wideningLexemes(query, original, bound, 0),
    ["panel", "flow", "vortex"],
    "no threshold: every added word widens",
  );
  assert.deepEqual(
    wideningLexemes(query, original, bound, 0.31),
    ["vortex"],
    "panel + flow = 0.3 < 0.31 cannot reach the page",
  );
  assert.deepEqual(
    wideningLexemes(query, original, bound, 0.3),
    ["flow", "vortex"],
    "a sum equal to the threshold could tie: kept",
  );
  assert.deepEqual(wideningLexemes(query, original, bound, 100), [], "all of them together fall short");
});
