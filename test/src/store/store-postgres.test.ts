import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import pg from "pg";
import { migrate } from "@context-hub/store/testing";
import { startTestPostgres, type TestPostgres } from "../support/postgres.js";
import { defineConcurrencyTests } from "./store-concurrency.js";
import { defineStoreSuite } from "./store-suite.js";
import { expectError, logger, openConnection, principal, startTestStore } from "./store-fixtures.js";

// One server for the whole file: every database below is created on it, so it starts once.
let server: TestPostgres;
before(async () => {
  server = await startTestPostgres();
});
after(async () => {
  await server?.close();
});

async function hasPgvector(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'");
    return rows.length > 0;
  } finally {
    await client.end();
  }
}

defineStoreSuite({
  name: "PostgreSQL server",
  persistent: true,
  async createDatabase() {
    const database = await startTestPostgres();
    return { options: { url: database.url, dataDir: "", poolMax: 10 }, dispose: () => database.close() };
  },
  expectedVectorType: async (options) => ((await hasPgvector(options.url)) ? "pgvector" : "real[]"),
});

defineConcurrencyTests();

describe("store on PostgreSQL server: replicas and reachability", () => {
  test("replicas migrating at once queue on the advisory lock: one applies, the others find nothing to do", async () => {
    const database = await startTestPostgres();
    const options = { url: database.url, dataDir: "", poolMax: 2 };
    const connections = await Promise.all(Array.from({ length: 4 }, () => openConnection(options)));
    try {
      const results = await Promise.all(connections.map((connection) => migrate(connection, logger)));
      const applied = results.map((result) => result.applied.length).sort();
      assert.deepEqual(applied.slice(0, 3), [0, 0, 0]);
      assert.ok(applied[3]! > 0);
    } finally {
      await Promise.all(connections.map((connection) => connection.close()));
      await database.close();
    }
  });

  test("/readyz turns 503 and reads fail as STORE_UNAVAILABLE while the database refuses connections; both recover", async () => {
    const database = await startTestPostgres();
    const options = { url: database.url, dataDir: "", poolMax: 2 };
    const store = await startTestStore(options);
    // A database cannot lock itself out, so the switch is thrown from another database on the same server.
    const admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    const name = new URL(database.url).pathname.slice(1);
    const readyz = async () => (await fetch(`http://127.0.0.1:${store.service.opsPort}/readyz`)).status;
    try {
      assert.equal(await readyz(), 200);
      await admin.query(`ALTER DATABASE ${admin.escapeIdentifier(name)} ALLOW_CONNECTIONS false`);
      await admin.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
        [name],
      );
      assert.equal(await readyz(), 503);
      await expectError(
        store.client.listEntries({ principal: principal("t", "a1") }),
        "STORE_UNAVAILABLE",
        /database is unavailable/,
      );
      await admin.query(`ALTER DATABASE ${admin.escapeIdentifier(name)} ALLOW_CONNECTIONS true`);
      assert.equal(await readyz(), 200);
      assert.deepEqual((await store.client.listEntries({ principal: principal("t", "a1") })).entries, []);
    } finally {
      await admin.end();
      await store.close();
      await database.close();
    }
  });
});
