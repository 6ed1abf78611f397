import { test } from "node:test";
import assert from "node:assert/strict";
import { isStopword, splitIdentifier, tokenize, toStem } from "./tokenizer.js";

test("tokenize lowercases words and drops punctuation", () => {
  assert.deepEqual(tokenize("Hello, World! (Again)"), ["hello", "world", "again"]);
});

test("tokenize keeps identifiers, versions and contractions whole", () => {
  assert.deepEqual(tokenize("Call snake_case_name on v1.2.3; don't use state-of-the-art."), [
    "call",
    "snake_case_name",
    "on",
    "v1.2.3",
    "don't",
    "use",
    "state-of-the-art",
  ]);
});

test("tokenize is Unicode-aware", () => {
  assert.deepEqual(tokenize("Übergröße café naïve Москва 東京 ٣٤"), [
    "übergröße",
    "café",
    "naïve",
    "москва",
    "東京",
    "٣٤",
  ]);
});

test("tokenize can preserve case", () => {
  assert.deepEqual(tokenize("getUserName(HTTPServer)", { preserveCase: true }), ["getUserName", "HTTPServer"]);
});

test("splitIdentifier splits on separators and camelCase", () => {
  assert.deepEqual(splitIdentifier("getHTTPServer"), ["get", "http", "server"]);
  assert.deepEqual(splitIdentifier("snake_case-name.v2"), ["snake", "case", "name", "v2"]);
  assert.deepEqual(splitIdentifier("plain"), ["plain"]);
});

test("toStem folds inflections of one word together and leaves identifiers alone", () => {
  for (const group of [
    ["index", "indexes", "indexed", "indexing"],
    ["cache", "caches", "cached", "caching"],
    ["query", "queries"],
    ["run", "running", "runs"],
  ]) {
    assert.equal(new Set(group.map(toStem)).size, 1, group.join(","));
  }
  assert.equal(toStem("user_ids"), "user_ids");
  assert.equal(toStem("v1.2s"), "v1.2s");
  assert.notEqual(toStem("index"), toStem("indent"));
});

test("isStopword knows function words only", () => {
  assert.equal(isStopword("the"), true);
  assert.equal(isStopword("database"), false);
});
