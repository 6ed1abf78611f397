import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { PGlite } from "@electric-sql/pglite";
import { createPgliteStatements, type PgliteStatements, type PgliteTransaction } from "./pglite-statements.js";
import { encodeFloat4Array, type ArrayElementType } from "./bind-message.js";

let pglite: PGlite;
let statements: PgliteStatements;

/** Runs `fn` in a transaction of `statements`, committing when it returns and rolling back when it throws. */
async function inTransaction<T>(fn: (transaction: PgliteTransaction) => Promise<T>): Promise<T> {
  const transaction: PgliteTransaction = { begun: false };
  let result: T;
  try {
    result = await fn(transaction);
  } catch (error) {
    await statements.end(transaction, "rollback");
    throw error;
  }
  await statements.end(transaction, "commit");
  return result;
}

/** The names of the statements PostgreSQL holds prepared in the session. */
async function preparedNames(): Promise<string[]> {
  const { rows } = await pglite.query<{ name: string }>("SELECT name FROM pg_prepared_statements ORDER BY name");
  return rows.map((row) => row.name);
}

before(async () => {
  pglite = await PGlite.create();
  // Capacity 3, so eviction is reachable in a test.
  statements = createPgliteStatements(pglite, 3);
  await statements.run(
    undefined,
    "CREATE TABLE notes (id integer PRIMARY KEY, body text NOT NULL, tags text[] NOT NULL DEFAULT '{}', meta jsonb, at timestamptz)",
    undefined,
  );
});

after(async () => {
  await pglite.close();
});

test("a row statement is prepared once and then runs by name, with parameters serialised by their inferred types", async () => {
  const insert =
    "INSERT INTO notes (id, body, tags, meta, at) VALUES ($1, $2, $3, $4, $5) RETURNING id, tags, meta, at";
  const at = new Date("2026-01-02T03:04:05.678Z");
  const first = await statements.run<{ id: number; tags: string[]; meta: unknown; at: Date }>(undefined, insert, [
    1,
    "it's",
    ["a", "b,c"],
    { k: [1, "x"] },
    at,
  ]);
  assert.deepEqual(first.rows, [{ id: 1, tags: ["a", "b,c"], meta: { k: [1, "x"] }, at }]);
  assert.equal(first.rowCount, 1);
  const before = await preparedNames();
  await statements.run(undefined, insert, [2, "second", [], null, null]);
  assert.deepEqual(await preparedNames(), before, "the second run reuses the prepared statement");

  const read = await statements.run<{ body: string }>(
    undefined,
    "SELECT body FROM notes WHERE id = ANY($1) ORDER BY id",
    [[1, 2]],
  );
  assert.deepEqual(
    read.rows.map((row) => row.body),
    ["it's", "second"],
  );
  assert.equal(read.rowCount, 2);
});

test("parameters of every UTF-8 width, empty, NULL and a megabyte long reach PostgreSQL byte for byte", async () => {
  const values = ["plain", "é and ß", "€ 中文", "🚀 and 𝄞", "", null, `${"ab€🚀".repeat(200_000)}.`];
  const query = "SELECT $1::text AS value, octet_length($1::text) AS bytes, $1::text IS NULL AS missing";
  for (const value of values) {
    const { rows } = await statements.run<{ value: string | null; bytes: number | null; missing: boolean }>(
      undefined,
      query,
      [value],
    );
    assert.deepEqual(rows, [
      { value, bytes: value === null ? null : Buffer.byteLength(value, "utf8"), missing: value === null },
    ]);
  }
  // Several parameters in one statement keep their order and their own lengths.
  const { rows } = await statements.run<{ joined: string }>(
    undefined,
    "SELECT concat_ws('|', $1::text, $2::text, $3::text, $4::text) AS joined",
    ["a", null, "€", "🚀"],
  );
  assert.deepEqual(rows, [{ joined: "a|€|🚀" }]);
});

test("a failing statement reports PostgreSQL's error and leaves the session usable", async () => {
  await assert.rejects(
    statements.run(undefined, "INSERT INTO notes (id, body) VALUES ($1, $2)", [1, "duplicate"]),
    (error: Error & { code?: string }) => error.code === "23505",
  );
  await assert.rejects(statements.run(undefined, "SELECT nonsense FROM notes", []), /column "nonsense" does not exist/);
  const { rows } = await statements.run<{ n: number }>(undefined, "SELECT count(*)::integer AS n FROM notes", []);
  assert.equal(rows[0]?.n, 2);
});

test("the least recently used statement is closed beyond the capacity", async () => {
  for (const n of [1, 2, 3, 4]) await statements.run(undefined, `SELECT ${n} + $1::integer AS n`, [0]);
  const names = await preparedNames();
  assert.ok(names.length <= 3, `at most 3 statements stay prepared, found ${names.length}`);
  const { rows } = await statements.run<{ n: number }>(undefined, "SELECT 1 + $1::integer AS n", [1]);
  assert.equal(rows[0]?.n, 2, "an evicted statement is prepared again when it comes back");
});

test("a schema change closes the prepared statements, so SELECT * returns the new row type", async () => {
  const all = "SELECT * FROM notes WHERE id = $1";
  const before = await statements.run<Record<string, unknown>>(undefined, all, [1]);
  assert.ok(!("extra" in before.rows[0]!));
  await statements.run(undefined, "ALTER TABLE notes ADD COLUMN extra text NOT NULL DEFAULT 'x'", undefined);
  assert.deepEqual(await preparedNames(), []);
  const afterwards = await statements.run<Record<string, unknown>>(undefined, all, [1]);
  assert.equal(afterwards.rows[0]?.extra, "x");
});

test("a statement whose row type changed behind the cache's back is prepared afresh outside a transaction, and fails inside one", async () => {
  const all = "SELECT * FROM notes WHERE id = $1";
  await statements.run(undefined, all, [1]);
  // A schema change the cache does not see.
  await pglite.exec("ALTER TABLE notes ADD COLUMN later integer NOT NULL DEFAULT 7");
  const { rows } = await statements.run<Record<string, unknown>>(undefined, all, [1]);
  assert.equal(rows[0]?.later, 7);

  await pglite.exec("ALTER TABLE notes DROP COLUMN later");
  await assert.rejects(
    inTransaction((tx) => statements.run(tx, all, [1])),
    /cached plan must not change result type/,
  );
  const again = await statements.run<Record<string, unknown>>(undefined, all, [1]);
  assert.ok(!("later" in again.rows[0]!));
});

test("inside a transaction statements see its writes and roll back with it; DDL and savepoints run unprepared", async () => {
  await assert.rejects(
    inTransaction(async (tx) => {
      await statements.run(tx, "INSERT INTO notes (id, body) VALUES ($1, $2)", [10, "inside"]);
      await statements.run(tx, "SAVEPOINT item", undefined);
      await assert.rejects(statements.run(tx, "INSERT INTO notes (id, body) VALUES ($1, $2)", [10, "again"]));
      await statements.run(tx, "ROLLBACK TO SAVEPOINT item", undefined);
      const { rows } = await statements.run<{ body: string }>(tx, "SELECT body FROM notes WHERE id = $1", [10]);
      assert.equal(rows[0]?.body, "inside");
      throw new Error("roll back");
    }),
    /roll back/,
  );
  const { rows } = await statements.run(undefined, "SELECT body FROM notes WHERE id = $1", [10]);
  assert.equal(rows.length, 0);
});

test("a transaction's BEGIN rides with its first statement, and one that ran nothing sends nothing", async () => {
  const read = "SELECT pg_current_xact_id()::text AS xact, $1::integer AS n";
  await statements.run(undefined, read, [0]);
  const exchange = pglite.execProtocol.bind(pglite);
  let exchanges = 0;
  pglite.execProtocol = (message, options) => {
    exchanges++;
    return exchange(message, options);
  };
  try {
    const ids = await inTransaction(async (tx) => {
      const first = await statements.run<{ xact: string }>(tx, read, [1]);
      const second = await statements.run<{ xact: string }>(tx, read, [2]);
      return [first.rows[0]!.xact, second.rows[0]!.xact];
    });
    assert.equal(ids[0], ids[1], "one transaction id, so the first statement already ran inside the transaction");
    assert.equal(exchanges, 3, "BEGIN and the first statement, the second statement, COMMIT");
    exchanges = 0;
    await inTransaction(async () => undefined);
    assert.equal(exchanges, 0);
  } finally {
    pglite.execProtocol = exchange;
  }
});

test("a COMMIT that PostgreSQL turns into a ROLLBACK, after a failed statement was swallowed, throws", async () => {
  await assert.rejects(
    inTransaction(async (tx) => {
      await statements.run(tx, "INSERT INTO notes (id, body) VALUES ($1, $2)", [20, "lost"]);
      await statements.run(tx, "INSERT INTO notes (id, body) VALUES ($1, $2)", [1, "duplicate"]).catch(() => undefined);
    }),
    /rolled back at COMMIT/,
  );
  const { rows } = await statements.run(undefined, "SELECT body FROM notes WHERE id = $1", [20]);
  assert.equal(rows.length, 0);
  const after = await statements.run<{ n: number }>(undefined, "SELECT count(*)::integer AS n FROM notes", []);
  assert.ok(after.rows[0]!.n > 0, "the session is usable afterwards");
});

test("a binary parameter reaches PostgreSQL as its bytes, beside text parameters and nulls, and in PGlite's own query", async () => {
  const floats = Float32Array.from([0.1, -2.5, 1e-7, 3.4028234663852886e38, 1.401298464324817e-45, -7.5]);
  const param = {
    elementType: "float4",
    toPostgresBinary: (element: ArrayElementType) => encodeFloat4Array(floats, element),
    toPostgres: () => `{${Array.from(floats).join(",")}}`,
  };
  const { rows } = await statements.run<{ numbers: string; kind: string; missing: string | null; n: number }>(
    undefined,
    "SELECT ($1::real[])::text AS numbers, $2::text AS kind, $3::text AS missing, cardinality($1::real[]) AS n",
    [param, "floats", null],
  );
  assert.equal(rows[0]?.kind, "floats");
  assert.equal(rows[0]?.missing, null);
  assert.equal(rows[0]?.n, floats.length);
  const readBack = rows[0]!.numbers.slice(1, -1).split(",").map(Number);
  assert.deepEqual(Float32Array.from(readBack), floats);
  // An empty array, prepared and not.
  const empty = {
    elementType: "float4",
    toPostgresBinary: (element: ArrayElementType) => encodeFloat4Array([], element),
    toPostgres: () => "{}",
  };
  const prepared = await statements.run<{ n: number }>(undefined, "SELECT coalesce(cardinality($1::real[]), -1) AS n", [
    empty,
  ]);
  assert.equal(prepared.rows[0]?.n, 0);
  // VALUES is not prepared: PGlite's own query takes the text form.
  const viaQuery = await statements.run<{ column1: number }>(undefined, "VALUES (cardinality($1::real[]))", [param]);
  assert.equal(viaQuery.rows[0]?.column1, floats.length);
});
