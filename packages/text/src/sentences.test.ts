import { test } from "node:test";
import assert from "node:assert/strict";
import { splitSentences } from "./sentences.js";

test("splitSentences splits on terminal punctuation and reports offsets", () => {
  const text = "First one. Second one!  Third one?";
  const sentences = splitSentences(text);
  assert.deepEqual(
    sentences.map((s) => s.text),
    ["First one.", "Second one!", "Third one?"],
  );
  for (const sentence of sentences) assert.equal(text.slice(sentence.start, sentence.end), sentence.text);
});

test("splitSentences does not split after abbreviations, initials, decimals or before lowercase", () => {
  const text = "Use e.g. Postgres or Dr. Smith's tool by J. Doe. Version 1.5 works. It ran at 3 p.m. and stopped. Done";
  assert.deepEqual(
    splitSentences(text).map((s) => s.text),
    ["Use e.g. Postgres or Dr. Smith's tool by J. Doe.", "Version 1.5 works.", "It ran at 3 p.m. and stopped.", "Done"],
  );
});

test("splitSentences breaks at blank lines and keeps closing quotes", () => {
  assert.deepEqual(
    splitSentences('He said "stop." Then left\n\nno period here').map((s) => s.text),
    ['He said "stop."', "Then left", "no period here"],
  );
});

test("splitSentences of blank text is empty", () => {
  assert.deepEqual(splitSentences("  \n\t "), []);
});

test("runs of terminal punctuation end a sentence only when whitespace follows them", () => {
  assert.deepEqual(
    splitSentences("Wait... What?! It broke…” Then x.y.z ran. Done").map((s) => s.text),
    ["Wait...", "What?!", "It broke…”", "Then x.y.z ran.", "Done"],
  );
  assert.deepEqual(splitSentences(`a${".".repeat(100_000)}b`).length, 1);
  assert.deepEqual(
    splitSentences(`End.${".".repeat(10)} Next one.\n \nAfter a blank line`).map((s) => s.text),
    [`End.${".".repeat(10)}`, "Next one.", "After a blank line"],
  );
});
