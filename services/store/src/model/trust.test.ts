import { test } from "node:test";
import assert from "node:assert/strict";
import { isContextHubError } from "@context-hub/common";
import { initialTrust, reviewedState, trustAfterChange } from "./trust.js";

const person = { groups: ["eng"] };
const agent = { groups: ["eng", "agents"] };
const finding = (field: "text" | "metadata" | "tags", rule: "role-tag" | "tool-call") => ({ field, rule });

test("a new entry: verified only for a person's own words through a person's credential", () => {
  assert.deepEqual(initialTrust("user", person, []), { state: "verified", reasons: [] });
  assert.deepEqual(initialTrust("agent", person, []), { state: "unverified", reasons: [] });
  assert.deepEqual(
    initialTrust("user", agent, []),
    { state: "unverified", reasons: [] },
    "an agent cannot vouch for 'user' words",
  );
  assert.deepEqual(initialTrust("user", person, [finding("text", "role-tag")]), {
    state: "quarantined",
    reasons: ["text:role-tag"],
  });
});

test("a change re-screens what it replaces and keeps the findings of what it leaves", () => {
  const quarantined = { state: "quarantined" as const, reasons: ["metadata:tool-call", "text:role-tag"] };
  assert.deepEqual(
    trustAfterChange(quarantined, "user", person, { text: [] }, true),
    { state: "quarantined", reasons: ["metadata:tool-call"] },
    "the metadata still trips",
  );
  assert.deepEqual(
    trustAfterChange(quarantined, "user", person, { text: [], metadata: [] }, true),
    { state: "verified", reasons: [] },
    "clean again: earned state",
  );
  assert.deepEqual(trustAfterChange(quarantined, "agent", person, { text: [], metadata: [] }, true), {
    state: "unverified",
    reasons: [],
  });
});

test("an agent's edit of a verified note makes it unverified; a tag change leaves the state", () => {
  const verified = { state: "verified" as const, reasons: [] };
  assert.equal(trustAfterChange(verified, "user", agent, { text: [] }, true).state, "unverified");
  assert.equal(trustAfterChange(verified, "user", agent, { tags: [] }, false).state, "verified");
  assert.equal(
    trustAfterChange(verified, "user", person, { tags: [finding("tags", "tool-call")] }, false).state,
    "quarantined",
  );
});

test("only a review ends a rejection", () => {
  const rejected = { state: "rejected" as const, reasons: [] };
  assert.equal(trustAfterChange(rejected, "user", person, { text: [] }, true).state, "rejected");
  assert.deepEqual(trustAfterChange(rejected, "user", person, { text: [finding("text", "role-tag")] }, true), {
    state: "rejected",
    reasons: ["text:role-tag"],
  });
});

test("reviews: approve verifies, reject rejects, and nobody approves what they wrote", () => {
  const entry = { id: "e1", owner: "alice", updatedBy: "bob" };
  assert.equal(reviewedState(entry, "approve", { subject: "carol" }), "verified");
  assert.equal(
    reviewedState(entry, "reject", { subject: "alice" }),
    "rejected",
    "rejecting one's own entry is allowed",
  );
  for (const reviewer of ["alice", "bob"]) {
    assert.throws(
      () => reviewedState(entry, "approve", { subject: reviewer }),
      (error: unknown) =>
        isContextHubError(error) && error.code === "PERMISSION_DENIED" && /you wrote it/.test(error.message),
      reviewer,
    );
  }
});
