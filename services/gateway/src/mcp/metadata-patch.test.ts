import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { ContextHubError } from "@context-hub/common";
import type { JsonObject } from "@bufbuild/protobuf";
import { applyMetadataPatch, maxPatchAttempts, mergePatch } from "./metadata-patch.js";

describe("metadata_patch", () => {
  test("merges as RFC 7396 says (its appendix A examples)", () => {
    const cases: [unknown, unknown, unknown][] = [
      [{ a: "b" }, { a: "c" }, { a: "c" }],
      [{ a: "b" }, { b: "c" }, { a: "b", b: "c" }],
      [{ a: "b" }, { a: null }, {}],
      [{ a: "b", b: "c" }, { a: null }, { b: "c" }],
      [{ a: ["b"] }, { a: "c" }, { a: "c" }],
      [{ a: "c" }, { a: ["b"] }, { a: ["b"] }],
      [{ a: { b: "c" } }, { a: { b: "d", c: null } }, { a: { b: "d" } }],
      [{ a: [{ b: "c" }] }, { a: [1] }, { a: [1] }],
      [
        ["a", "b"],
        ["c", "d"],
        ["c", "d"],
      ],
      [{ a: "b" }, ["c"], ["c"]],
      [{ e: null }, { a: 1 }, { e: null, a: 1 }],
      [[1, 2], { a: "b", c: null }, { a: "b" }],
      [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
    ];
    for (const [target, patch, expected] of cases)
      assert.deepEqual(mergePatch(target, patch), expected, `${JSON.stringify(target)} + ${JSON.stringify(patch)}`);
  });

  test("a __proto__ key in a patch stays an own key and reaches no prototype", () => {
    const merged = mergePatch({}, JSON.parse('{"__proto__": {"polluted": true}}')) as Record<string, unknown>;
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.ok(Object.prototype.hasOwnProperty.call(merged, "__proto__"));
  });

  /** An entry whose version moves when another writer changes it between a read and a write. */
  const entry = (racers: number) => {
    const state = { metadata: { a: 1 } as JsonObject, version: 1, writes: 0 };
    let pendingRaces = racers;
    return {
      state,
      read: async () => ({ metadata: structuredClone(state.metadata), version: state.version }),
      write: async (metadata: JsonObject, version: number) => {
        if (pendingRaces > 0) {
          pendingRaces--;
          state.metadata = { ...state.metadata, other: state.version };
          state.version++;
        }
        if (version !== state.version)
          throw new ContextHubError("VERSION_CONFLICT", `at ${state.version}, not ${version}`);
        state.metadata = metadata;
        state.version++;
        state.writes++;
        return state.version;
      },
    };
  };

  test("a conflict re-reads and merges onto what the other writer left", async () => {
    const target = entry(2);
    assert.equal(await applyMetadataPatch(target, { b: 2 }, undefined), 4);
    assert.deepEqual(target.state.metadata, { a: 1, other: 2, b: 2 }, "the other writer's key survives");
  });

  test("an entry that keeps changing gives up after the last attempt, and a pinned version is not retried", async () => {
    await assert.rejects(
      applyMetadataPatch(entry(maxPatchAttempts), { b: 2 }, undefined),
      /VERSION_CONFLICT|at \d+, not/,
    );
    const pinned = entry(1);
    await assert.rejects(
      applyMetadataPatch(pinned, { b: 2 }, 1),
      (error: unknown) => error instanceof ContextHubError && error.code === "VERSION_CONFLICT",
    );
    assert.equal(pinned.state.writes, 0);
    await assert.rejects(applyMetadataPatch(entry(0), { b: 2 }, 7), /at version 1, not the expected 7/);
  });
});
