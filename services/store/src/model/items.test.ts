import { test } from "node:test";
import assert from "node:assert/strict";
import { ContextHubError } from "@context-hub/common";
import { runItems, validateItems, type ItemResult, type SavepointScope } from "./items.js";

/** A fake store: a list of committed writes, transactions that stage writes, and savepoints that undo them. */
function createFakeStore() {
  const committed: string[] = [];
  const log: string[] = [];
  interface Scope extends SavepointScope {
    staged: string[];
  }
  const transaction = async <T>(fn: (scope: Scope) => Promise<T>): Promise<T> => {
    log.push("begin");
    const scope: Scope = {
      staged: [],
      async savepoint(inner) {
        const mark = scope.staged.length;
        try {
          return await inner();
        } catch (error) {
          scope.staged.length = mark;
          throw error;
        }
      },
    };
    const value = await fn(scope);
    committed.push(...scope.staged);
    log.push("commit");
    return value;
  };
  return { committed, log, transaction };
}

const items: ItemResult<string>[] = [
  { ok: true, value: "a" },
  { ok: false, error: { code: "INVALID_ARGUMENT", message: "bad" } },
  { ok: true, value: "fail" },
  { ok: true, value: "c" },
];

async function write(scope: { staged: string[] }, item: string): Promise<string> {
  scope.staged.push(item);
  if (item === "fail")
    throw new ContextHubError("VERSION_CONFLICT", "lost the race", { remedy: "retry with expected_version 2" });
  return item.toUpperCase();
}

test("non-atomic: each item in its own transaction; failures are per item and undo only themselves", async () => {
  const store = createFakeStore();
  const results = await runItems(items, { atomic: false, scope: undefined, transaction: store.transaction }, write);
  assert.deepEqual(results, [
    { ok: true, value: "A" },
    { ok: false, error: { code: "INVALID_ARGUMENT", message: "bad" } },
    { ok: false, error: { code: "VERSION_CONFLICT", message: "lost the race; retry with expected_version 2" } },
    { ok: true, value: "C" },
  ]);
  assert.deepEqual(store.committed, ["a", "c"]);
  assert.equal(store.log.filter((entry) => entry === "begin").length, 3, "one transaction per valid item");
});

test("non-atomic inside the call's transaction: items run under savepoints and commit together", async () => {
  const store = createFakeStore();
  const results = await store.transaction((scope) =>
    runItems(items, { atomic: false, scope, transaction: store.transaction }, write),
  );
  assert.deepEqual(
    results.map((result) => result.ok),
    [true, false, false, true],
  );
  assert.deepEqual(store.committed, ["a", "c"], "the failed item's write was undone by its savepoint");
  assert.deepEqual(store.log, ["begin", "commit"]);
});

test("atomic: the first failure fails the call and nothing commits", async () => {
  const store = createFakeStore();
  const valid = items.filter((item) => item.ok);
  await assert.rejects(
    runItems(valid, { atomic: true, scope: undefined, transaction: store.transaction }, write),
    (error: unknown) => error instanceof ContextHubError && error.code === "VERSION_CONFLICT",
  );
  assert.deepEqual(store.committed, []);
  const prepared: string[] = [];
  const results = await runItems(
    [{ ok: true, value: "x" }],
    {
      atomic: true,
      scope: undefined,
      transaction: store.transaction,
      prepare: async () => void prepared.push("locks"),
    },
    write,
  );
  assert.deepEqual([results, prepared, store.committed], [[{ ok: true, value: "X" }], ["locks"], ["x"]]);
});

test("a fault that is not a domain error fails even a non-atomic call", async () => {
  const store = createFakeStore();
  await assert.rejects(
    runItems(
      [{ ok: true, value: "a" }],
      { atomic: false, scope: undefined, transaction: store.transaction },
      async () => {
        throw new Error("connection reset");
      },
    ),
    /connection reset/,
  );
});

test("validation: atomic calls fail on the first invalid item, others record it and go on", () => {
  const validate = (value: number, index: number) => {
    if (value < 0) throw new ContextHubError("INVALID_ARGUMENT", `items[${index}] is negative`);
    return value * 2;
  };
  assert.deepEqual(validateItems([1, -1, 3], false, validate), [
    { ok: true, value: 2 },
    { ok: false, error: { code: "INVALID_ARGUMENT", message: "items[1] is negative" } },
    { ok: true, value: 6 },
  ]);
  assert.throws(() => validateItems([1, -1, 3], true, validate), /items\[1\] is negative/);
});
