import { test } from "node:test";
import assert from "node:assert/strict";
import { changeKey, parseResourceChange } from "./change-feed.js";

const id = "01a24bb0-17c6-7511-b033-5bca490c61ab";

test("change payloads are read by kind, and anything else is ignored", () => {
  const tenantKey = changeKey("acme");
  assert.deepEqual(parseResourceChange(JSON.stringify({ k: "e", t: tenantKey, x: id })), {
    tenantKey,
    change: { kind: "entry", entryId: id },
  });
  assert.deepEqual(
    parseResourceChange(JSON.stringify({ k: "s", t: tenantKey, x: `${changeKey("a1")}:${changeKey("s")}` })),
    {
      tenantKey,
      change: { kind: "subscriptions", subjectKey: changeKey("a1"), sessionKey: changeKey("s") },
    },
  );
  assert.equal(parseResourceChange('{"k":"r"}'), "everything");
  for (const payload of [
    "",
    "null",
    "{}",
    JSON.stringify({ k: "e", t: "acme", x: id }),
    JSON.stringify({ k: "e", t: tenantKey, x: "1" }),
    JSON.stringify({ k: "z", t: tenantKey, x: "" }),
  ])
    assert.equal(parseResourceChange(payload), undefined, payload);
});
