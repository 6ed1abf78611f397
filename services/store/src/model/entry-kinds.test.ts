import { test } from "node:test";
import assert from "node:assert/strict";
import { refusalOf } from "@context-hub/common/testing";
import { toEntryKinds, validateEntryKind, validateKindFilter, validateTitle } from "./entry-kinds.js";

test("a write's kind: none is a note, case and spaces do not matter, and only accepted kinds pass", () => {
  const kinds = toEntryKinds(["recipe", "note"]);
  assert.deepEqual(kinds, ["note", "document", "prompt", "plan", "report", "memory", "recipe"]);
  assert.equal(validateEntryKind(undefined, kinds, "kind"), "note");
  assert.equal(validateEntryKind("  ", kinds, "kind"), "note");
  assert.equal(validateEntryKind(" Recipe ", kinds, "kind"), "recipe");
  assert.equal(
    refusalOf(() => validateEntryKind("poem", kinds, "entries[2].kind")),
    'entries[2].kind "poem" is not a kind this store accepts; use one of note, document, prompt, plan, report, recipe',
  );
  assert.match(
    refusalOf(() => validateEntryKind("MEMORY", kinds, "kind")),
    /^kind "memory" is reserved for the store's memories/,
  );
});

test("a filter's kinds: any well-formed name, normalised and de-duplicated, at most 20", () => {
  assert.deepEqual(validateKindFilter(["Prompt", "prompt ", "gone-kind"], "filter.kinds"), ["prompt", "gone-kind"]);
  assert.match(
    refusalOf(() => validateKindFilter(["ok", "no spaces"], "filter.kinds")),
    /^filter\.kinds\[1\]/,
  );
  assert.match(
    refusalOf(() =>
      validateKindFilter(
        Array.from({ length: 21 }, (_, index) => `k${index}`),
        "filter.kinds",
      ),
    ),
    /at most 20 kinds/,
  );
});

test("a title is one trimmed line of at most 300 characters; empty is none", () => {
  assert.equal(validateTitle("  Release notes  ", "title"), "Release notes");
  assert.equal(validateTitle(" ", "title"), undefined);
  assert.equal(validateTitle(undefined, "title"), undefined);
  assert.equal(validateTitle(` ${"x".repeat(300)} `, "title")?.length, 300);
  assert.match(
    refusalOf(() => validateTitle("x".repeat(301), "title")),
    /301 characters; the limit is 300/,
  );
  assert.match(
    refusalOf(() => validateTitle("a\u2028b", "title")),
    /one line/,
  );
  assert.match(
    refusalOf(() => validateTitle("a\u0000b", "title")),
    /NUL/,
  );
});
