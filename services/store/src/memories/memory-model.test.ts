import { test } from "node:test";
import assert from "node:assert/strict";
import { revisionFor, type MemoryRevision } from "./memory-model.js";

const reviewed: MemoryRevision = {
  version: 2,
  change: "put",
  visibility: "private",
  kind: "runbook",
  tags: ["ops"],
  valueType: "text",
  value: "rotate the key at noon",
  contentHash: "ab12",
  writtenBy: "alice",
  writtenAt: new Date("2026-12-01T10:00:00Z"),
  reason: "",
  redacted: false,
  trust: { state: "verified", reasons: ["value:tool-call"] },
  review: { by: "rev", at: new Date("2026-12-01T11:00:00Z"), note: "the noon rotation is real" },
};

test("a revision that was private is redacted for anyone but its owner and an admin, the review's note with its value", () => {
  assert.deepEqual(revisionFor(reviewed, "alice", "alice", false), reviewed);
  assert.deepEqual(revisionFor(reviewed, "alice", "bob", true), reviewed);
  const seen = revisionFor(reviewed, "alice", "bob", false);
  assert.deepEqual(
    [seen.redacted, seen.value, seen.contentHash, seen.kind, seen.tags, seen.trust.reasons],
    [true, "", "", "", [], []],
  );
  // Who judged it and when stay, like who wrote it; the note may speak of the value.
  assert.deepEqual(seen.review, { by: "rev", at: reviewed.review?.at, note: "" });
  assert.deepEqual(revisionFor({ ...reviewed, review: null }, "alice", "bob", false).review, null);
  // A revision that was shared is shown whole.
  assert.deepEqual(revisionFor({ ...reviewed, visibility: "shared" }, "alice", "bob", false), {
    ...reviewed,
    visibility: "shared",
  });
});
