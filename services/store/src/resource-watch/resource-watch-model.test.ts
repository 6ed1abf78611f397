import { test } from "node:test";
import assert from "node:assert/strict";
import { refusalOf } from "@context-hub/common/testing";
import { toWatchedTarget, validateSessionId, validateWatchedUri, validateWatchedUris } from "./resource-watch-model.js";

const id = "01a24bb0-17c6-7511-b033-5bca490c61ab";

test("an entry's own URIs, in every form, name the entry; other context-hub: URIs name nothing; any other is published", () => {
  for (const suffix of ["", "/versions/3", "/images/0", `/artifacts/${"ab".repeat(32)}`])
    assert.deepEqual(toWatchedTarget(`context-hub://entries/${id}${suffix}`), { kind: "entry", entryId: id });
  assert.deepEqual(toWatchedTarget(`CONTEXT-HUB://entries/${id.toUpperCase()}`), { kind: "entry", entryId: id });
  for (const uri of [
    "context-hub://entries/01a24bb0",
    `context-hub://entries/${id}/images/x`,
    `context-hub://entries/${id}/`,
    "context-hub://threads/x",
  ])
    assert.deepEqual(toWatchedTarget(uri), { kind: "nothing" }, uri);
  assert.deepEqual(toWatchedTarget("docs://handbook"), { kind: "published" });
});

test("a watched URI is absolute visible ASCII of at most 4,096 characters; a session id 1 to 128 visible ASCII", () => {
  assert.equal(validateWatchedUri(`docs://${"a".repeat(4_089)}`).length, 4_096);
  assert.match(
    refusalOf(() => validateWatchedUri("x".repeat(4_097))),
    /4097 characters; the limit is 4096/,
  );
  assert.match(
    refusalOf(() => validateWatchedUri("relative/path")),
    /must be an absolute URI/,
  );
  assert.match(
    refusalOf(() => validateWatchedUri("docs://caf\u00e9")),
    /non-ASCII/,
  );
  assert.equal(validateSessionId("s".repeat(128)), "s".repeat(128));
  assert.match(
    refusalOf(() => validateSessionId("tab\there")),
    /visible ASCII/,
  );
  assert.deepEqual(validateWatchedUris(["a:1", "a:1", "b:2"]), ["a:1", "b:2"], "repeats count once");
  assert.match(
    refusalOf(() => validateWatchedUris(Array.from({ length: 101 }, (_, index) => `a:${index}`))),
    /names 101 URIs; one watch takes at most 100/,
  );
  assert.equal(validateWatchedUris(Array.from({ length: 100 }, (_, index) => `a:${index}`)).length, 100);
});
