import { test } from "node:test";
import assert from "node:assert/strict";
import { createUuidV7, isUuid, toUuidV7Millis } from "./ids.js";

test("a UUIDv7 carries version 7, the RFC variant and the creation millisecond", () => {
  const now = Date.now();
  const id = createUuidV7(now);
  assert.ok(isUuid(id), id);
  assert.equal(id[14], "7");
  assert.ok(["8", "9", "a", "b"].includes(id[19]!), id);
  assert.equal(toUuidV7Millis(id), now);
});

test("ids are strictly increasing within a millisecond, past counter overflow and when the clock steps back", () => {
  const start = Date.now() + 10_000;
  const ids: string[] = [];
  for (let index = 0; index < 10_000; index++) ids.push(createUuidV7(start));
  ids.push(createUuidV7(start - 5_000));
  for (let index = 1; index < ids.length; index++)
    assert.ok(ids[index - 1]! < ids[index]!, `${ids[index - 1]} < ${ids[index]}`);
  assert.equal(new Set(ids).size, ids.length);
  assert.ok(toUuidV7Millis(ids.at(-1)!) >= start, "a clock step back never moves ids back");
});
