import { test } from "node:test";
import assert from "node:assert/strict";
import { isReservedSubject, reservedSubjectMessage } from "./reserved-subjects.js";

test("operator is reserved in every spelling that reads as it", () => {
  for (const subject of [
    "operator",
    "Operator",
    " OPERATOR ",
    "operator\u200b",
    "\uff4f\uff50\uff45\uff52\uff41\uff54\uff4f\uff52",
  ])
    assert.equal(isReservedSubject(subject), true, JSON.stringify(subject));
  for (const subject of ["operators", "ops", "alice", "operator-bot", "local"])
    assert.equal(isReservedSubject(subject), false, subject);
});

test("the refusal names the field and the reason", () => {
  assert.match(
    reservedSubjectMessage("key.subject", "operator"),
    /^key\.subject "operator" is reserved: the audit log records operator actions under that name/,
  );
});
