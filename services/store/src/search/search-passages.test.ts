import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { findPassage, findPassages, outlineNodeFinder, toQueryStems } from "./passages.js";

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

  test("several passages do not overlap, come best first, and each holds a query word", () => {
    const text = [
      filler(150, "alpha"),
      "the turbine blade cracked near the bearing",
      filler(150, "beta"),
      "a turbine was inspected",
      filler(150, "gamma"),
      "the bearing was replaced",
      filler(150, "delta"),
    ].join(" ");
    const passages = findPassages(text, "turbine blade bearing", 120, 5);
    assert.equal(passages.length, 3, "one window per separate mention, none for text without query words");
    assert.ok(passages[0]!.text.includes("blade"), "the window with the most distinct words comes first");
    for (const passage of passages) {
      assert.equal(text.slice(passage.start, passage.end), passage.text);
      assert.ok(passage.end - passage.start <= 120);
      assert.ok(passage.weight > 0);
    }
    assert.ok(passages[0]!.weight >= passages[1]!.weight && passages[1]!.weight >= passages[2]!.weight);
    const sorted = [...passages].sort((a, b) => a.start - b.start);
    for (let index = 1; index < sorted.length; index++)
      assert.ok(sorted[index]!.start >= sorted[index - 1]!.end, "windows do not overlap");
    assert.deepEqual(
      { start: passages[0]!.start, end: passages[0]!.end },
      (({ start, end }) => ({ start, end }))(findPassage(text, "turbine blade bearing", 120)),
      "the first window is findPassage's",
    );
  });

  test("a text without the query's words gives one window at its start; count bounds the windows", () => {
    const text = filler(400, "word");
    const none = findPassages(text, "absent", 100, 3);
    assert.equal(none.length, 1);
    assert.equal(none[0]!.start, 0);
    assert.equal(none[0]!.weight, 0);
    const many = `${filler(50, "a")} needle ${filler(50, "b")} needle ${filler(50, "c")} needle ${filler(50, "d")}`;
    assert.equal(findPassages(many, "needle", 60, 2).length, 2);
    assert.equal(findPassages(many, "needle", 60, 5).length, 3);
  });

  test("a passage's node is the deepest section it starts in, the same in a prefix as in the whole text", () => {
    const text = "Intro line.\n\n# Setup\n\nSome words.\n\n## Install\n\nRun it.\n\n# Usage\n\nCall it.\n";
    const nodeOf = outlineNodeFinder(text, text.length);
    assert.equal(nodeOf(0), "");
    assert.equal(nodeOf(text.indexOf("Some words")), "setup");
    assert.equal(nodeOf(text.indexOf("Run it")), "setup/install");
    assert.equal(nodeOf(text.indexOf("Call it")), "usage");
    const prefixOf = outlineNodeFinder(text, text.indexOf("Run it") + 1);
    assert.equal(prefixOf(text.indexOf("Run it")), "setup/install");
  });
});
