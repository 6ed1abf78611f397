import { test } from "node:test";
import assert from "node:assert/strict";
import { isContextHubError } from "@context-hub/common";
import { toIdQuery } from "./id-query.js";

test("a full id is the one-point range, however it is written", () => {
  const id = "0190c2a4-5b6c-7d8e-9f00-112233445566";
  for (const written of [id, id.toUpperCase(), id.replace(/-/g, "")]) {
    assert.deepEqual(toIdQuery(written, "ids[0]"), { input: written, isPrefix: false, lower: id, upper: id });
  }
});

test("a prefix covers every id that starts with it; hyphens anywhere are ignored", () => {
  assert.deepEqual(toIdQuery("0190C2A4-5b", "ids[0]"), {
    input: "0190C2A4-5b",
    isPrefix: true,
    lower: "0190c2a4-5b00-0000-0000-000000000000",
    upper: "0190c2a4-5bff-ffff-ffff-ffffffffffff",
  });
  assert.equal(toIdQuery("0190c2a4", "ids[0]").isPrefix, true);
  assert.equal(toIdQuery("0".repeat(31), "ids[0]").upper, "00000000-0000-0000-0000-00000000000f");
});

test("anything else is INVALID_ARGUMENT naming the field", () => {
  for (const bad of ["", "0190c2a", "0".repeat(33), "0190c2ag", "0190 c2a4"]) {
    assert.throws(
      () => toIdQuery(bad, "updates[3].id"),
      (error: unknown) =>
        isContextHubError(error) && error.code === "INVALID_ARGUMENT" && /^updates\[3\]\.id /.test(error.message),
      bad,
    );
  }
});
