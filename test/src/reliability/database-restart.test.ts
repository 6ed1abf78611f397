import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { startRestartablePostgres, type RestartablePostgres } from "../support/postgres.js";
import {
  assertEveryWriteWhole,
  assertFailedCleanlyAndRecovered,
  runThroughFault,
  startHubWithClients,
} from "./database-fault-harness.js";

/**
 * The database restarted for real while writers and a reader keep calling:
 * a fast shutdown (what an orchestrator's stop sends: every session is ended
 * and the server exits), a few seconds down, then a start on the same data.
 * The store's connections are cut mid-use and new ones are refused while it
 * is down. Calls fail with a clear error naming the store, the gateway
 * reports not ready, the store reconnects on its own once the server is
 * back (nothing else is restarted), and every acknowledged write is whole,
 * with no partial row from the ones cut off.
 */

const downMs = 3_000;

let postgres: RestartablePostgres;
let served: Awaited<ReturnType<typeof startHubWithClients>>;

before(async () => {
  postgres = await startRestartablePostgres();
  served = await startHubWithClients(postgres.url);
});

after(async () => {
  await served?.close();
  await postgres?.close();
});

test("a restarted database: clear errors, readiness drops, the store reconnects, every acknowledged write whole", async () => {
  const run = await runThroughFault(served.hub, served.clients, {
    begin: () => postgres.shutDown(),
    holdMs: downMs,
    end: () => postgres.startUp(),
  });
  assert.equal(run.readiness, 503, "the gateway reports not ready while the database is down");
  assertFailedCleanlyAndRecovered(run);
  await assertEveryWriteWhole(postgres.url, run.acknowledged);
});
