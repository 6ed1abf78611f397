import { test } from "node:test";
import assert from "node:assert/strict";
import { chunkText, type TextChunk } from "./chunker.js";

function assertWellFormed(text: string, chunks: TextChunk[], size: number, overlap: number) {
  assert.ok(chunks.length > 0);
  assert.equal(chunks[0]!.start, 0);
  assert.equal(chunks.at(-1)!.end, text.length);
  chunks.forEach((chunk, index) => {
    assert.equal(chunk.ordinal, index);
    assert.ok(chunk.end > chunk.start);
    assert.ok(chunk.end - chunk.start <= size, `chunk ${index} is ${chunk.end - chunk.start} long`);
    if (index > 0) {
      const previous = chunks[index - 1]!;
      assert.ok(chunk.start > previous.start, "chunks advance");
      assert.ok(chunk.start <= previous.end, "no gap between chunks");
      assert.ok(previous.end - chunk.start <= overlap, "overlap is bounded");
    }
  });
}

const sentence = "The quick brown fox jumps over the lazy dog near the riverbank. ";

test("an empty or blank text has no chunks", () => {
  assert.deepEqual(chunkText(""), []);
  assert.deepEqual(chunkText(" \n\t "), []);
});

test("a short text is one chunk covering it", () => {
  assert.deepEqual(chunkText("short text"), [{ ordinal: 0, start: 0, end: 10 }]);
});

test("chunks cover the text, respect size and overlap, and start at word starts", () => {
  const text = sentence.repeat(100);
  const chunks = chunkText(text, { size: 1500, overlap: 200 });
  assertWellFormed(text, chunks, 1500, 200);
  assert.ok(chunks.length >= 5);
  for (const chunk of chunks.slice(1)) assert.match(text.slice(chunk.start - 1, chunk.start + 1), /^\s\S/);
  for (const chunk of chunks.slice(0, -1))
    assert.match(text.slice(chunk.start, chunk.end), /\.\s$/, "ends after a sentence");
  assert.ok(
    chunks.slice(1).every((chunk, index) => chunks[index]!.end - chunk.start > 0),
    "consecutive chunks overlap",
  );
});

test("chunks prefer paragraph breaks over sentence ends", () => {
  const paragraph = sentence.repeat(8).trim();
  const text = [paragraph, paragraph, paragraph, paragraph].join("\n\n");
  const chunks = chunkText(text, { size: 1500, overlap: 200 });
  assertWellFormed(text, chunks, 1500, 200);
  for (const chunk of chunks.slice(0, -1))
    assert.ok(text.slice(0, chunk.end).endsWith("\n\n"), `chunk ${chunk.ordinal} ends at a paragraph break`);
});

test("a text without spaces is cut hard but never inside a surrogate pair", () => {
  const text = "😀".repeat(1000);
  const chunks = chunkText(text, { size: 301, overlap: 50 });
  assertWellFormed(text, chunks, 301, 50);
  for (const chunk of chunks) {
    assert.equal(chunk.start % 2, 0);
    assert.equal(chunk.end % 2, 0);
  }
});

test("random texts always chunk well-formed", () => {
  let seed = 42;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const pieces = ["word", "x", "longerword", ". ", "\n", "\n\n", " ", "ünï", "😀"];
  for (let round = 0; round < 200; round++) {
    let text = "";
    const length = Math.floor(random() * 3000);
    while (text.length < length) text += pieces[Math.floor(random() * pieces.length)];
    if (!/\S/.test(text)) continue;
    const size = 20 + Math.floor(random() * 400);
    const overlap = Math.floor(random() * (size / 2));
    assertWellFormed(text, chunkText(text, { size, overlap }), size, overlap);
  }
});

test("bad options are rejected", () => {
  assert.throws(() => chunkText("text", { size: 100, overlap: 60 }), RangeError);
  assert.throws(() => chunkText("text", { size: 1, overlap: 0 }), RangeError);
});
