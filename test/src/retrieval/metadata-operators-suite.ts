/**
 * The sixteen metadata operators, `case_sensitive` and dotted paths, at the
 * store's gRPC surface. Registered by the retrieval suite, so it runs against
 * PGlite and a real PostgreSQL server; every condition is checked on the
 * full-text leg, the semantic leg, the listing and grep, which must agree.
 */
import { describe, before, test } from "node:test";
import assert from "node:assert/strict";
import { fromJson, type JsonValue, type MessageInitShape } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import { vectorToBytes } from "@context-hub/common";
import { searchV1, storeV1 } from "@context-hub/proto";
import { commitWithVectors, direction, testModel, type RetrievalHarness } from "./retrieval-fixtures.js";
import { expectError, newTenant, principal } from "../store/store-fixtures.js";

type Filter = MessageInitShape<typeof storeV1.EntryFilterSchema>;
type Condition = MessageInitShape<typeof storeV1.MetadataConditionSchema>;
const { FullTextMode, GrepOutput } = searchV1;
const { MetadataOperator: Op } = storeV1;

/** A condition as the gateway sends it: no value for the operators that take none. */
const condition = (
  key: string,
  operator: storeV1.MetadataOperator,
  value?: JsonValue,
  caseSensitive?: boolean,
): Condition => ({
  key,
  operator,
  ...(value === undefined ? {} : { value: fromJson(ValueSchema, value) }),
  ...(caseSensitive === undefined ? {} : { caseSensitive }),
});

/** Registers the metadata operator tests on the harness the retrieval suite started. */
export function defineMetadataOperatorTests(harness: () => RetrievalHarness): void {
  describe("metadata operators, case and dotted paths", () => {
    const tenant = newTenant("operators");
    const caller = principal(tenant, "a1");
    const ids: Record<string, string> = {};
    before(async () => {
      const fixtures: [string, { [key: string]: JsonValue }][] = [
        [
          "alpha",
          {
            status: "Open",
            file: "notes.md",
            deleted_at: null,
            labels: ["Urgent", "ops"],
            user: { prefs: { theme: "dark" }, id: 7 },
          },
        ],
        [
          "beta",
          { status: "open", file: "Readme.MD", labels: ["ops"], assignee: "bob", user: { prefs: { theme: "light" } } },
        ],
        ["gamma", { status: "closed", "user.id": 7, ids: [3, 5], assignee: null, user: { id: 1 } }],
        ["delta", { priority: 2 }],
      ];
      for (const [name, metadata] of fixtures) {
        ids[name] = await commitWithVectors(
          harness().client,
          caller,
          "ops",
          `operator fixture ${name} with a few words`,
          [direction(0, 1, 0.1)],
          { metadata },
        );
      }
    });

    const names = (found: readonly string[]) =>
      Object.entries(ids)
        .filter(([, id]) => found.includes(id))
        .map(([name]) => name)
        .sort();

    /** The entries a filter keeps, read four ways that must agree. */
    const everyWay = async (...conditions: Condition[]): Promise<string[]> => {
      const filter: Filter = { metadata: conditions };
      const h = harness();
      const byText = names(
        (
          await h.searchClient.fullTextSearch({
            principal: caller,
            query: "operator fixture",
            mode: FullTextMode.MATCH,
            filter,
            limit: 50,
          })
        ).hits.map((hit) => hit.entry?.id ?? ""),
      );
      const byVector = names(
        (
          await h.searchClient.semanticSearch({
            principal: caller,
            embeddingModel: testModel,
            vector: vectorToBytes(direction(0)),
            filter,
            limit: 50,
          })
        ).hits.map((hit) => hit.entry?.id ?? ""),
      );
      const listed = names(
        (await h.client.listEntries({ principal: caller, filter, limit: 100 })).entries.map((entry) => entry.id),
      );
      const grepped = names(
        (
          await h.searchClient.grep({
            principal: caller,
            pattern: "operator fixture",
            output: GrepOutput.FILES_WITH_MATCHES,
            filter,
          })
        ).entries.map((entry) => entry.entryId),
      );
      assert.deepEqual(byVector, byText, "the semantic leg applies the same filter");
      assert.deepEqual(listed, byText, "the listing applies the same filter");
      assert.deepEqual(grepped, byText, "grep applies the same filter");
      return byText;
    };

    test("each operator, with and without case", async () => {
      const cases: [Condition, string[]][] = [
        [condition("status", Op.UNSPECIFIED, "closed"), ["gamma"]],
        [condition("status", Op.EQ, "open"), ["beta"]],
        [condition("status", Op.EQ, "open", false), ["alpha", "beta"]],
        [condition("status", Op.NE, "open", false), ["delta", "gamma"]],
        [condition("status", Op.IN, ["OPEN", "closed"]), ["gamma"]],
        [condition("status", Op.IN, ["OPEN", "closed"], false), ["alpha", "beta", "gamma"]],
        [condition("status", Op.NOT_IN, ["OPEN"], false), ["delta", "gamma"]],
        [condition("file", Op.ENDS_WITH, ".md"), ["alpha"]],
        [condition("file", Op.ENDS_WITH, ".md", false), ["alpha", "beta"]],
        [condition("file", Op.STARTS_WITH, "READ"), []],
        [condition("file", Op.STARTS_WITH, "READ", false), ["beta"]],
        [condition("file", Op.CONTAINS, "me.md"), ["beta"]],
        [condition("file", Op.CONTAINS, "me.md", true), []],
        [condition("file", Op.CONTAINS, "me.MD", true), ["beta"]],
        [condition("deleted_at", Op.IS_NULL), ["alpha"]],
        [condition("assignee", Op.IS_NULL), ["gamma"]],
        [condition("assignee", Op.IS_NOT_NULL), ["beta"]],
        [condition("assignee", Op.EXISTS), ["beta"]],
        [condition("assignee", Op.EXISTS, true), ["beta", "gamma"]],
        [condition("assignee", Op.EXISTS, false), ["alpha", "delta"]],
        [condition("assignee", Op.NOT_EXISTS), ["alpha", "delta", "gamma"]],
        [condition("labels", Op.ARRAY_CONTAINS, "ops"), ["alpha", "beta"]],
        [condition("labels", Op.ARRAY_CONTAINS, "urgent"), []],
        [condition("labels", Op.ARRAY_CONTAINS, "urgent", false), ["alpha"]],
        [condition("ids", Op.ARRAY_CONTAINS, 5), ["gamma"]],
        [condition("status", Op.ARRAY_CONTAINS, "open"), []],
        [condition("priority", Op.GTE, 2), ["delta"]],
      ];
      for (const [given, expected] of cases) {
        assert.deepEqual(
          await everyWay(given),
          expected,
          `${Op[given.operator ?? 0]} ${given.key} ${JSON.stringify(given.value)} case_sensitive=${String(given.caseSensitive)}`,
        );
      }
    });

    test("a dotted key reads the nested path, and a top-level key spelled with the dots wins", async () => {
      assert.deepEqual(await everyWay(condition("user.prefs.theme", Op.EQ, "dark")), ["alpha"]);
      assert.deepEqual(await everyWay(condition("user.prefs.theme", Op.EQ, "DARK", false)), ["alpha"]);
      assert.deepEqual(await everyWay(condition("user.prefs.theme", Op.EXISTS)), ["alpha", "beta"]);
      assert.deepEqual(await everyWay(condition("user.prefs", Op.NOT_EXISTS)), ["delta", "gamma"]);
      assert.deepEqual(
        await everyWay(condition("user.id", Op.EQ, 7)),
        ["alpha", "gamma"],
        "gamma by its top-level key user.id, not its user.id of 1",
      );
      assert.deepEqual(
        await everyWay(condition("user.id", Op.LT, 5)),
        [],
        "gamma's nested user.id (1) is shadowed by its top-level key",
      );
      assert.deepEqual(await everyWay(condition("user.prefs.theme", Op.ENDS_WITH, "ght")), ["beta"]);
      assert.deepEqual(
        await everyWay(
          condition("user.prefs.theme", Op.IN, ["dark", "light"]),
          condition("status", Op.EQ, "open", false),
        ),
        ["alpha", "beta"],
        "conditions combine with AND",
      );
    });

    test("bad combinations are refused naming the condition", async () => {
      const h = harness();
      const search = (...conditions: Condition[]) =>
        h.searchClient.fullTextSearch({
          principal: caller,
          query: "operator",
          mode: FullTextMode.MATCH,
          filter: { metadata: conditions },
        });
      await expectError(
        search(condition("status", Op.EQ, "x"), condition("priority", Op.GT, 1, true)),
        "INVALID_ARGUMENT",
        /filter\.metadata\[1\]\.case_sensitive applies only/,
      );
      await expectError(
        search(condition("deleted_at", Op.IS_NULL, "x")),
        "INVALID_ARGUMENT",
        /filter\.metadata\[0\]\.value must be left out for is_null/,
      );
      await expectError(
        search(condition("labels", Op.ARRAY_CONTAINS)),
        "INVALID_ARGUMENT",
        /filter\.metadata\[0\]\.value is required for array_contains/,
      );
      await expectError(
        h.client.listEntries({ principal: caller, filter: { metadata: [condition("a..b", Op.EQ, 1)] } }),
        "INVALID_ARGUMENT",
        /filter\.metadata\[0\]\.key .*dotted path/,
      );
    });
  });
}
