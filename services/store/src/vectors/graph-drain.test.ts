import { test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { createLogger } from "@context-hub/common";
import { newGraph, type Space } from "./graph-space.js";
import { createPendingDrain } from "./graph-vector-index.js";
import { defaultVectorIndexSettings } from "./postgres-vector-settings.js";

const logger = createLogger("graph-drain-test", "silent");
const dimension = 8;

function spaceWithPending(count: number): Space {
  return {
    model: "test-model",
    dimension,
    graph: newGraph(defaultVectorIndexSettings, dimension),
    ids: new Map(),
    changed: false,
    pending: Array.from({ length: count }, (_, index) => ({
      id: randomUUID(),
      model: "test-model",
      vector: Array.from({ length: dimension }, (_, axis) => Math.sin(index * 7 + axis)),
    })),
    ready: true,
  };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

async function untilDrained(space: Space): Promise<void> {
  while (space.pending.length > 0) await new Promise((resolve) => setTimeout(resolve, 5));
}

test("chunks waiting for the graph go in while no call is served, and wait for the calls being served", async () => {
  const space = spaceWithPending(300);
  let calls = 1;
  const drain = createPendingDrain(logger, new Map([["space", space]]), () => calls);
  drain();
  await turn();
  await turn();
  assert.equal(space.ids.size, 0, "nothing went in while a call was being served");
  calls = 0;
  await untilDrained(space);
  assert.equal(space.ids.size, 300, "every waiting chunk went in once the store was idle");
});

test("a store that is never idle still fills its graph, and past 2,000 waiting chunks stops waiting for calls", async () => {
  const few = spaceWithPending(50);
  createPendingDrain(logger, new Map([["few", few]]), () => 1)();
  await untilDrained(few);
  assert.equal(few.ids.size, 50, "a slice now and then while calls never stop");

  const many = spaceWithPending(2_500);
  createPendingDrain(logger, new Map([["many", many]]), () => 1)();
  await turn();
  await turn();
  assert.ok(many.ids.size > 0, "a backlog past 2,000 goes in at once, calls or not");
  await untilDrained(many);
  assert.equal(many.ids.size, 2_500);
});
