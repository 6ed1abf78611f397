import assert from "node:assert/strict";
import { test } from "node:test";
import { answerExtractively, extractiveStatementChars } from "./extractive-answer.js";

const passages = [
  "The boundary layer thickens downstream. Heat transfer at the wall rises with the Mach number in the hypersonic regime.",
  "Skin friction falls as the Reynolds number grows. The weather was fine that day.",
  "Heat transfer at the wall rises with the Mach number in the hypersonic regime.",
];

test("the extractive answer cites the sentences holding the question's words, best first, each quoting itself", () => {
  const answer = answerExtractively("How does heat transfer vary with Mach number?", passages, { maxStatements: 3 });
  assert.ok(answer.statements.length >= 1);
  const [first] = answer.statements;
  assert.equal(first?.text, "Heat transfer at the wall rises with the Mach number in the hypersonic regime.");
  assert.deepEqual(first?.citations, [{ passage: 1, quote: first?.text }]);
  for (const statement of answer.statements) {
    for (const citation of statement.citations) {
      const passage = passages[citation.passage - 1] ?? "";
      assert.ok(passage.includes(citation.quote), `quote ${citation.quote} is in passage ${citation.passage}`);
    }
  }
  // The same sentence in a later passage is a repeat, and a sentence holding no question word is never chosen.
  assert.equal(answer.statements.filter((statement) => statement.text.startsWith("Heat transfer")).length, 1);
  assert.ok(answer.statements.every((statement) => !statement.text.includes("weather")));
  // "vary" is in no passage; the asking words are never gaps.
  assert.deepEqual(answer.gaps, ["The evidence does not mention: vary."]);
});

test("the extractive answer names the question's words no passage holds, and says when nothing is covered", () => {
  const partial = answerExtractively("explain skin friction and turbulence spectra", passages, { maxStatements: 5 });
  assert.match(partial.statements[0]?.text ?? "", /Skin friction/);
  assert.deepEqual(partial.gaps, ["The evidence does not mention: turbulence, spectra."]);

  const none = answerExtractively("quantum chromodynamics", passages, { maxStatements: 5 });
  assert.deepEqual(none.statements, []);
  assert.equal(none.gaps.length, 1);
});

test("the extractive answer keeps to its statement limit and cuts a long sentence at a word", () => {
  const long = `${"flow separation occurs ".repeat(60)}near the trailing edge.`;
  const answer = answerExtractively("where does flow separation occur", [long, ...passages], { maxStatements: 1 });
  assert.equal(answer.statements.length, 1);
  const text = answer.statements[0]?.text ?? "";
  assert.ok(text.length <= extractiveStatementChars);
  assert.ok(long.startsWith(text));
  assert.ok(!text.endsWith(" "));
});
