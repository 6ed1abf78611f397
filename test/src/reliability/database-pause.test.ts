import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { startTestPostgres, type TestPostgres } from "../support/postgres.js";
import { signalPostgres } from "../support/process-tree.js";
import {
  assertEveryWriteWhole,
  assertFailedCleanlyAndRecovered,
  runThroughFault,
  startHubWithClients,
} from "./database-fault-harness.js";

/**
 * The database frozen (SIGSTOP of the whole PostgreSQL server) for a few
 * seconds while writers and a reader keep calling: the gateway reports not
 * ready, calls fail with a clear error naming the store instead of hanging
 * or answering "Internal error", nothing is restarted, calls succeed again
 * soon after the database resumes, and every acknowledged write is whole
 * (text hash, chunks, summary) with no partial row left by the ones that
 * failed. bench/faults.js runs this and the other fault scenarios at length.
 */

const pauseMs = 4_000;

let postgres: TestPostgres;
let served: Awaited<ReturnType<typeof startHubWithClients>>;

before(async () => {
  postgres = await startTestPostgres();
  served = await startHubWithClients(postgres.url);
});

after(async () => {
  await served?.close();
  await postgres?.close();
});

test("a frozen database: clear errors, readiness drops, recovery without restart, every acknowledged write whole", async () => {
  const port = Number(new URL(postgres.url).port);
  const run = await runThroughFault(served.hub, served.clients, {
    begin: async () => assert.ok(signalPostgres(port, "SIGSTOP") >= 2, "the server and its processes were frozen"),
    holdMs: pauseMs,
    end: async () => void signalPostgres(port, "SIGCONT"),
  });
  assert.equal(run.readiness, 503, "the gateway reports not ready while the database is frozen");
  assertFailedCleanlyAndRecovered(run);
  await assertEveryWriteWhole(postgres.url, run.acknowledged);
});
