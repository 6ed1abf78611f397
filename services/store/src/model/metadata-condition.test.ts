import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { isContextHubError } from "@context-hub/common";
import { validateMetadataCondition, type MetadataConditionInput } from "./metadata-condition.js";

const check = (condition: Partial<MetadataConditionInput>) =>
  validateMetadataCondition(
    { key: "k", operator: "eq", value: undefined, ...condition } as MetadataConditionInput,
    "filter.metadata[2]",
  );
const refusedNaming = (pattern: RegExp) => (error: unknown) =>
  isContextHubError(error) && error.code === "INVALID_ARGUMENT" && pattern.test(error.message);

describe("metadata condition", () => {
  test("the operators that take no value refuse one, and exists takes one optionally", () => {
    for (const operator of ["not_exists", "is_null", "is_not_null"] as const) {
      assert.equal(check({ operator }).value, undefined);
      assert.equal(
        check({ operator, value: null }).value,
        undefined,
        `${operator}: an explicit null is the same as none`,
      );
      assert.throws(
        () => check({ operator, value: true }),
        refusedNaming(new RegExp(`filter\\.metadata\\[2\\]\\.value must be left out for ${operator}`)),
      );
    }
    assert.equal(check({ operator: "exists" }).value, undefined);
    assert.equal(check({ operator: "exists", value: false }).value, false);
    assert.throws(
      () => check({ operator: "exists", value: "yes" }),
      refusedNaming(/filter\.metadata\[2\]\.value must be left out/),
    );
  });

  test("the comparing operators need a value that suits them", () => {
    assert.throws(() => check({ operator: "eq" }), refusedNaming(/filter\.metadata\[2\]\.value is required for eq/));
    assert.throws(() => check({ operator: "ends_with", value: "" }), refusedNaming(/non-empty string for ends_with/));
    assert.throws(() => check({ operator: "ends_with", value: 3 }), refusedNaming(/non-empty string for ends_with/));
    assert.throws(() => check({ operator: "array_contains", value: null }), refusedNaming(/array_contains/));
    assert.throws(() => check({ operator: "array_contains", value: ["a"] }), refusedNaming(/array_contains/));
    assert.equal(check({ operator: "array_contains", value: 7 }).value, 7);
    assert.equal(check({ operator: "ends_with", value: ".md" }).value, ".md");
  });

  test("case_sensitive only where strings are compared", () => {
    for (const operator of ["eq", "ne", "contains", "starts_with", "ends_with", "array_contains"] as const) {
      assert.equal(check({ operator, value: "x", caseSensitive: false }).caseSensitive, false, operator);
    }
    assert.equal(check({ operator: "in", value: ["x"], caseSensitive: true }).caseSensitive, true);
    for (const [operator, value] of [
      ["gt", 1],
      ["exists", undefined],
      ["is_null", undefined],
    ] as const) {
      assert.throws(
        () => check({ operator, value, caseSensitive: true }),
        refusedNaming(new RegExp(`filter\\.metadata\\[2\\]\\.case_sensitive applies only .* not to ${operator}`)),
      );
    }
  });

  test("a dotted key is a path of non-empty names", () => {
    assert.deepEqual(check({ key: "user.preferences.theme", value: "dark" }).path, ["user", "preferences", "theme"]);
    assert.deepEqual(check({ key: "plain", value: 1 }).path, []);
    for (const key of [".a", "a.", "a..b"]) {
      assert.throws(
        () => check({ key, value: 1 }),
        refusedNaming(/filter\.metadata\[2\]\.key .*a dotted path needs a name/),
        key,
      );
    }
    assert.throws(
      () => check({ key: Array.from({ length: 40 }, () => "a").join("."), value: 1 }),
      refusedNaming(/at most \d+ names/),
    );
  });
});
