import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { isContextHubError } from "@context-hub/common";
import { createSqlParams } from "../db/sql-database.js";
import { validateSearchFilter, type SearchFilterInput } from "../model/search-filter.js";
import { entrySource, searchFilterConditions } from "./search-filter-sql.js";

const base: SearchFilterInput = {
  threadId: "",
  source: undefined,
  tagsAny: [],
  tagsAll: [],
  metadata: [],
  createdFrom: undefined,
  createdTo: undefined,
  contentType: "",
};
const invalid = (error: unknown) => isContextHubError(error) && error.code === "INVALID_ARGUMENT";

const principal = { tenant: "t", subject: "s", groups: [], scopes: ["context:read"] };

describe("search filter", () => {
  test("tags are normalised as on write", () => {
    const filter = validateSearchFilter({ ...base, tagsAny: [" Alpha ", "alpha", "BETA"], tagsAll: ["X"] });
    assert.deepEqual([filter.tagsAny, filter.tagsAll], [["alpha", "beta"], ["x"]]);
  });

  test("each operator takes only values that suit it", () => {
    const accept: [string, unknown][] = [
      ["eq", { a: [1] }],
      ["ne", null],
      ["gt", 3],
      ["lte", "2026-01-01"],
      ["in", [1, "x", null]],
      ["not_in", ["a"]],
      ["exists", false],
      ["contains", "x"],
      ["contains", 5],
      ["starts_with", "pre"],
    ];
    for (const [operator, value] of accept) {
      assert.doesNotThrow(
        () =>
          validateSearchFilter({
            ...base,
            metadata: [{ key: "k", operator: operator as never, value: value as never }],
          }),
        operator,
      );
    }
    const refuse: [string, unknown][] = [
      ["gt", true],
      ["lt", [1]],
      ["in", []],
      ["in", "x"],
      ["not_in", Array.from({ length: 101 }, (_, index) => index)],
      ["exists", "yes"],
      ["contains", ""],
      ["contains", { a: 1 }],
      ["starts_with", 5],
      ["eq", "nul\u0000"],
    ];
    for (const [operator, value] of refuse) {
      assert.throws(
        () =>
          validateSearchFilter({
            ...base,
            metadata: [{ key: "k", operator: operator as never, value: value as never }],
          }),
        invalid,
        `${operator} ${JSON.stringify(value)}`,
      );
    }
    assert.throws(() => validateSearchFilter({ ...base, metadata: [{ key: "", operator: "eq", value: 1 }] }), invalid);
    assert.throws(
      () => validateSearchFilter({ ...base, metadata: [{ key: "k", operator: "eq", value: undefined }] }),
      invalid,
    );
  });

  test("a condition's value obeys metadata's depth and key rules", () => {
    const nested = (depth: number): unknown => (depth === 1 ? { leaf: true } : { inner: nested(depth - 1) });
    assert.doesNotThrow(() =>
      validateSearchFilter({ ...base, metadata: [{ key: "k", operator: "eq", value: nested(32) as never }] }),
    );
    assert.throws(
      () => validateSearchFilter({ ...base, metadata: [{ key: "k", operator: "eq", value: nested(33) as never }] }),
      /filter\.metadata\[0\]\.value nests objects and arrays deeper than 32 levels/,
    );
    assert.throws(
      () =>
        validateSearchFilter({
          ...base,
          metadata: [{ key: "k", operator: "eq", value: JSON.parse('{"a":{"__proto__":1}}') as never }],
        }),
      /reserved/,
    );
  });

  test("an empty time range, a bad content type or too many conditions are refused", () => {
    const day = new Date("2026-01-02T00:00:00Z");
    assert.throws(() => validateSearchFilter({ ...base, createdFrom: day, createdTo: day }), invalid);
    assert.throws(() => validateSearchFilter({ ...base, contentType: "video" }), invalid);
    assert.throws(
      () =>
        validateSearchFilter({
          ...base,
          metadata: Array.from({ length: 21 }, () => ({ key: "k", operator: "eq" as const, value: 1 })),
        }),
      invalid,
    );
  });

  test("the SQL carries no value the caller wrote: every value is a parameter", () => {
    const hostile = "x'); DROP TABLE entries; --";
    const filter = validateSearchFilter({
      ...base,
      threadId: hostile,
      tagsAny: [hostile],
      tagsAll: [hostile],
      metadata: (["eq", "ne", "contains", "starts_with"] as const)
        .map((operator) => ({ key: hostile, operator, value: hostile }))
        .concat([{ key: hostile, operator: "in" as never, value: [hostile] as never }]),
      contentType: "text",
    });
    const params = createSqlParams();
    const sql = searchFilterConditions(principal, filter, "e", params).join(" AND ");
    assert.ok(!sql.includes("DROP"), sql);
    assert.ok(params.values.some((value) => value === hostile));
    assert.throws(
      () => searchFilterConditions(principal, filter, "e; --", createSqlParams()),
      /not a plain identifier/,
    );
  });

  test("the trust filter is always part of it, and include_quarantined alone lifts it", () => {
    const closed = searchFilterConditions(principal, validateSearchFilter(undefined), "e", createSqlParams());
    assert.ok(closed.includes("e.trust_state IN ('unverified', 'verified')"), closed.join(" AND "));
    const open = searchFilterConditions(
      principal,
      validateSearchFilter({ ...base, includeQuarantined: true }),
      "e",
      createSqlParams(),
    );
    assert.ok(!open.some((condition) => condition.includes("trust_state")), open.join(" AND "));
  });

  test("an empty tag and an in-list that is not a list are refused, naming the field", () => {
    assert.throws(() => validateSearchFilter({ ...base, tagsAny: [" "] }), /filter\.tags_any\[0\] is empty/);
    assert.throws(
      () => validateSearchFilter({ ...base, metadata: [{ key: "n", operator: "in", value: 3 }] }),
      /filter\.metadata\[0\]\.value must be a list of 1 to 100 values for in/,
    );
  });

  test("valid_at and as_of must be real instants; valid_at is a condition, as_of changes the relation read", () => {
    assert.throws(
      () => validateSearchFilter({ ...base, validAt: new Date(Number.NaN) }),
      /filter\.valid_at is not a valid time/,
    );
    assert.throws(
      () => validateSearchFilter({ ...base, asOf: new Date(Number.NaN) }),
      /filter\.as_of is not a valid time/,
    );
    const instant = new Date("2026-01-02T03:04:05.678Z");
    const params = createSqlParams();
    const conditions = searchFilterConditions(
      principal,
      validateSearchFilter({ ...base, validAt: instant }),
      "e",
      params,
    );
    assert.ok(
      conditions.some((condition) => /^tstzrange\(e\.valid_from, e\.valid_to\) @> \$\d+::timestamptz$/.test(condition)),
      conditions.join(" AND "),
    );
    assert.ok(params.values.includes(instant.toISOString()));

    assert.equal(entrySource(principal, validateSearchFilter(undefined), createSqlParams()), "entries");
    const pastParams = createSqlParams();
    const past = entrySource(principal, validateSearchFilter({ ...base, asOf: instant }), pastParams);
    assert.match(past, /FROM entries c LEFT JOIN LATERAL/);
    assert.match(past, /FROM tombstones t JOIN LATERAL/);
    assert.ok(
      pastParams.values.includes(instant.toISOString()) &&
        pastParams.values.includes("t") &&
        pastParams.values.includes("s"),
    );
    assert.doesNotMatch(past, /entry_search_vector/, "kept versions' stored vectors are read, never their text parsed");

    const matched = entrySource(principal, validateSearchFilter({ ...base, asOf: instant }), createSqlParams(), {
      matching: "$99::tsquery",
    });
    assert.doesNotMatch(
      matched,
      /LATERAL|entry_search_vector/,
      "a matching source looks rows up by their vectors instead of walking entries",
    );
    assert.match(matched, /FROM entries c\s+WHERE c\.search_vector @@ \$99::tsquery/);
    assert.equal(
      matched.match(
        /FROM entry_versions v JOIN (entries c|tombstones t) ON \S+ = v\.entry_id\s+WHERE v\.search_vector @@ \$99::tsquery/g,
      )?.length,
      2,
    );
    const page = entrySource(principal, validateSearchFilter({ ...base, asOf: instant }), createSqlParams(), {
      ids: "(SELECT id FROM page)",
    });
    assert.match(
      page,
      /c\.id IN \(SELECT id FROM page\)[\s\S]*t\.id IN \(SELECT id FROM page\)/,
      "a page's listing walks only the page's entries",
    );
  });
});
