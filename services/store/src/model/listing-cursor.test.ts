import { test } from "node:test";
import assert from "node:assert/strict";
import { decodeListingCursor, encodeListingCursor } from "./listing-cursor.js";

test("a listing cursor gives back its parts, and the first page has none", () => {
  assert.deepEqual(decodeListingCursor(encodeListingCursor(["ns", "key", "alice"]), "list_x", 3), [
    "ns",
    "key",
    "alice",
  ]);
  assert.equal(decodeListingCursor("", "list_x", 3), undefined);
});

test("a cursor the listing did not give is refused naming the tool: not base64 JSON, wrong length, not strings, or refused parts", () => {
  const refused = /^cursor is not one list_x gave$/;
  for (const cursor of [
    "not a cursor!",
    Buffer.from("{").toString("base64url"),
    encodeListingCursor(["one"]),
    Buffer.from(JSON.stringify(["a", 2])).toString("base64url"),
    encodeListingCursor(["other", "id"]),
  ])
    assert.throws(
      () => decodeListingCursor(cursor, "list_x", 2, ([kind]) => kind === "things"),
      (error: Error) => refused.test(error.message),
      cursor,
    );
});
