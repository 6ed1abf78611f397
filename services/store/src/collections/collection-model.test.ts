import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { insertedMembers, reorderedMembers, validateCollectionName, validateMemberIds } from "./collection-model.js";

describe("collection order", () => {
  test("a reorder puts the listed members first, in the order given, and keeps the others' order after them", () => {
    assert.deepEqual(reorderedMembers(["a", "b", "c", "d"], ["c", "a"]), ["c", "a", "b", "d"]);
    assert.deepEqual(reorderedMembers(["a", "b", "c"], ["c", "b", "a"]), ["c", "b", "a"]);
  });

  test("an add goes before the member at the place among the visible ones; hidden members keep their neighbours", () => {
    // "h" is a member the caller cannot see.
    const current = ["a", "h", "b", "c"];
    const visible = ["a", "b", "c"];
    assert.deepEqual(insertedMembers(current, visible, ["x"], 0), ["a", "h", "b", "c", "x"], "0: the end");
    assert.deepEqual(insertedMembers(current, visible, ["x", "y"], 1), ["x", "y", "a", "h", "b", "c"]);
    assert.deepEqual(insertedMembers(current, visible, ["x"], 2), ["a", "h", "x", "b", "c"]);
    assert.deepEqual(insertedMembers(current, visible, ["x"], 9), ["a", "h", "b", "c", "x"], "past the end: the end");
  });

  test("names are one trimmed line; entry ids are never given twice", () => {
    assert.equal(validateCollectionName("  Reading list "), "Reading list");
    assert.throws(() => validateCollectionName("two\nlines"), /one line/);
    assert.throws(() => validateCollectionName("x".repeat(201)), /the limit is 200/);
    assert.throws(() => validateMemberIds(["A1", "a1"]), /twice/);
    assert.throws(() => validateMemberIds([]), /at least one/);
  });
});
