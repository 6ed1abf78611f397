import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { findPassage, toQueryStems } from "./passages.js";

const filler = (words: number, seed: string) =>
  Array.from({ length: words }, (_, index) => `${seed}${index % 7}`).join(" ");

describe("passages for reranking", () => {
  test("query stems drop stop words unless nothing else is left", () => {
    assert.deepEqual(toQueryStems("What are the bearings of the turbines?"), ["bear", "turbin"]);
    assert.deepEqual(toQueryStems("the and of"), ["the", "and", "of"]);
  });

  test("a text shorter than the window is returned whole, trimmed", () => {
    assert.deepEqual(findPassage("  short note about rotors \n", "rotor", 200), {
      start: 2,
      end: 25,
      text: "short note about rotors",
    });
  });

  test("the window goes where the most distinct query words are, not merely the most hits", () => {
    const text = `${filler(200, "alpha")} turbine turbine turbine ${filler(200, "beta")} the turbine blade cracked near the bearing ${filler(200, "gamma")}`;
    const passage = findPassage(text, "turbine blade bearing", 120);
    assert.ok(
      passage.text.includes("blade") && passage.text.includes("bearing") && passage.text.includes("turbine"),
      passage.text,
    );
    assert.ok(passage.end - passage.start <= 120);
    assert.equal(text.slice(passage.start, passage.end), passage.text);
  });

  test("edges fall on word boundaries", () => {
    const text = `${filler(300, "word")} needle ${filler(300, "word")}`;
    const passage = findPassage(text, "needle", 100);
    assert.ok(passage.text.includes("needle"));
    assert.match(text[passage.start - 1] ?? " ", /\s/, "starts at a word start");
    assert.match(text[passage.end] ?? " ", /\s/, "ends at a word end");
  });

  test("a region (a chunk) bounds the window, and a text with no query word starts at the region", () => {
    const text = `${filler(100, "a")} needle ${filler(100, "b")} needle ${filler(100, "c")}`;
    const second = text.lastIndexOf("needle");
    const region = { start: second - 300, end: second + 300 };
    const passage = findPassage(text, "needle", 100, region);
    assert.ok(passage.start >= region.start && passage.end <= region.end);
    assert.ok(passage.start <= second && passage.end >= second + 6);
    const none = findPassage(text, "absent", 50, region);
    assert.ok(none.start >= region.start && none.start < region.start + 45, "starts near the region's start");
  });
});
