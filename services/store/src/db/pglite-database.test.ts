import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { acquireDataDirLock } from "./data-dir-lock.js";
import { createPgliteConnection } from "./pglite-database.js";
import type { SqlConnection } from "./sql-database.js";

let db: SqlConnection;

before(async () => {
  db = await createPgliteConnection({ dataDir: "memory://" });
  await db.query("CREATE TABLE items (n integer NOT NULL)");
});

after(async () => {
  await db.close();
});

test("a statement issued while a transaction is open waits for it instead of running inside it", async () => {
  let signalInserted!: () => void;
  const inserted = new Promise<void>((resolve) => (signalInserted = resolve));
  let releaseTransaction!: () => void;
  const held = new Promise<void>((resolve) => (releaseTransaction = resolve));
  const transaction = db.transaction(async (tx) => {
    await tx.query("INSERT INTO items VALUES (1)");
    signalInserted();
    await held;
    throw new Error("roll it back");
  });
  await inserted;
  // PGlite has one session: without the queue this SELECT would run inside the open transaction and see its row.
  const count = db.query<{ n: number }>("SELECT count(*)::integer AS n FROM items");
  releaseTransaction();
  await assert.rejects(transaction, /roll it back/);
  assert.equal((await count).rows[0]?.n, 0);
});

test("a transaction commits what its executor wrote", async () => {
  await db.transaction(async (tx) => {
    await tx.query("INSERT INTO items VALUES ($1), ($2)", [10, 11]);
  });
  const { rows, rowCount } = await db.query<{ n: number }>("SELECT n FROM items WHERE n >= 10 ORDER BY n");
  assert.deepEqual(
    rows.map((row) => row.n),
    [10, 11],
  );
  assert.equal(rowCount, 2);
  const deleted = await db.query("DELETE FROM items WHERE n >= 10");
  assert.equal(deleted.rowCount, 2);
});

test("statements a transaction issues together run one after another", async () => {
  const counts = await db.transaction((tx) =>
    Promise.all([
      tx.query("INSERT INTO items VALUES ($1)", [20]),
      tx.query<{ n: number }>("SELECT count(*)::integer AS n FROM items WHERE n = $1", [20]),
      tx.query("DELETE FROM items WHERE n = $1", [20]),
    ]),
  );
  assert.equal(counts[1].rows[0]?.n, 1, "the SELECT ran after the INSERT issued before it");
});

test("using the database itself inside a transaction throws instead of deadlocking", async () => {
  await assert.rejects(
    db.transaction(async () => db.transaction(async () => undefined)),
    /nested transactions are not supported/,
  );
  await assert.rejects(
    db.transaction(async () => db.query("SELECT 1")),
    /inside a transaction/,
  );
  assert.equal(await db.ping(), true, "the connection is still usable");
});

test("bytea round-trips through the native hex codecs", async () => {
  const bytes = new Uint8Array([0, 1, 127, 128, 255]);
  const { rows } = await db.query<{ data: Uint8Array }>("SELECT $1::bytea AS data", [bytes]);
  assert.deepEqual([...rows[0]!.data], [...bytes]);
});

test("a data directory is locked against a second store; a dead holder's lock is taken over", async () => {
  const directory = await mkdtemp(join(tmpdir(), "context-hub-lock-"));
  try {
    const lock = await acquireDataDirLock(directory);
    await assert.rejects(acquireDataDirLock(directory), /in use by another store \(process \d+\)/);
    await lock.release();
    const again = await acquireDataDirLock(directory);
    await again.release();
    // No process has pid 2^22 + 1 on Linux (pid_max is at most 2^22).
    await writeFile(join(directory, "context-hub-store.lock"), `${2 ** 22 + 1}\n`);
    const takeover = await acquireDataDirLock(directory);
    await takeover.release();
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
});
