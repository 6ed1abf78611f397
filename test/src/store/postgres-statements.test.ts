// Prepared statements on a real PostgreSQL server: prepared once per connection, bounded, and a stale one recovered from.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import pg from "pg";
import { createLogger } from "@context-hub/common";
import {
  createPostgresConnection,
  createPostgresStatements,
  encodeFloat4Array,
  isStaleStatement,
  type ArrayElementType,
} from "@context-hub/store/testing";
import { startTestPostgres, type TestPostgres } from "../support/postgres.js";

describe("prepared statements on a PostgreSQL server", () => {
  let database: TestPostgres;
  let client: pg.Client;

  before(async () => {
    database = await startTestPostgres();
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
    await client.query("CREATE TABLE notes (id integer PRIMARY KEY, body text NOT NULL)");
    await client.query("INSERT INTO notes SELECT g, 'note ' || g FROM generate_series(1, 20) g");
  });

  after(async () => {
    await client?.end();
    await database?.close();
  });

  /** A connection of its own per test: the statements a test prepares are counted on it alone. */
  const fresh = async (t: { after(fn: () => Promise<void>): void }) => {
    const own = new pg.Client({ connectionString: database.url });
    await own.connect();
    t.after(() => own.end());
    return own;
  };

  const preparedOnConnection = async (on: pg.ClientBase) =>
    (await on.query<{ name: string }>("SELECT name FROM pg_prepared_statements ORDER BY name")).rows.map(
      (row) => row.name,
    );

  test("a row statement is prepared once per connection and runs from then on by name", async (t) => {
    const client = await fresh(t);
    const statements = createPostgresStatements();
    for (const id of [1, 2, 3]) {
      const result = await statements.query(client, "SELECT body FROM notes WHERE id = $1", [id]);
      assert.deepEqual(result.rows, [{ body: `note ${id}` }]);
    }
    const names = await preparedOnConnection(client);
    assert.equal(names.length, 1);
    assert.match(names[0]!, /^ch_[0-9a-f]{32}$/);
  });

  test("statements without parameters and statements that are not row statements run unnamed", async (t) => {
    const client = await fresh(t);
    const statements = createPostgresStatements();
    assert.equal((await statements.query(client, "SELECT count(*)::int AS n FROM notes", [])).rows[0].n, 20);
    await statements.query(client, "SET application_name = 'statements-test'", undefined);
    await statements.query(client, "SELECT set_config('application_name', $1, false)", ["again"]);
    assert.equal((await preparedOnConnection(client)).length, 1, "only the parameterised SELECT was prepared");
  });

  test("past the capacity the least recently used statement is deallocated, and comes back when it is used again", async (t) => {
    const client = await fresh(t);
    const statements = createPostgresStatements(3);
    const texts = [0, 1, 2, 3, 4].map((offset) => `SELECT body FROM notes WHERE id = $1 + ${offset}`);
    for (const text of texts) assert.equal((await statements.query(client, text, [1])).rowCount, 1);
    assert.equal((await preparedOnConnection(client)).length, 3);
    // The first two were evicted; running the first again prepares it afresh (and evicts the next oldest).
    assert.deepEqual((await statements.query(client, texts[0]!, [5])).rows, [{ body: "note 5" }]);
    assert.equal((await preparedOnConnection(client)).length, 3);
  });

  test("a statement PostgreSQL rejects before preparing it is not counted as prepared", async (t) => {
    const client = await fresh(t);
    const statements = createPostgresStatements(2);
    await assert.rejects(
      statements.query(client, "SELECT body FROM no_such_table WHERE id = $1", [1]),
      /no_such_table/,
    );
    await statements.query(client, "SELECT body FROM notes WHERE id = $1", [1]);
    await statements.query(client, "SELECT body FROM notes WHERE id = $1 + 0", [1]);
    assert.equal(
      (await preparedOnConnection(client)).length,
      2,
      "the failed statement took no slot, so nothing was evicted for it",
    );
  });

  test("a prepared statement whose result row type changed is refused as stale; the store's connection retries on a fresh one", async () => {
    const statements = createPostgresStatements();
    await client.query("CREATE TABLE drafts (id integer PRIMARY KEY)");
    await client.query("INSERT INTO drafts VALUES (1)");
    await statements.query(client, "SELECT * FROM drafts WHERE id = $1", [1]);
    await client.query("ALTER TABLE drafts ADD COLUMN title text");
    const refused = await statements.query(client, "SELECT * FROM drafts WHERE id = $1", [1]).then(
      () => undefined,
      (error: unknown) => error,
    );
    assert.ok(isStaleStatement(refused), `refused as stale: ${String(refused)}`);

    const connection = await createPostgresConnection({
      url: database.url,
      poolMax: 1,
      preparedStatements: true,
      logger: createLogger("statements-test", "silent"),
    });
    try {
      assert.deepEqual((await connection.query("SELECT * FROM drafts WHERE id = $1", [1])).rows, [
        { id: 1, title: null },
      ]);
      await client.query("ALTER TABLE drafts ADD COLUMN due date");
      assert.deepEqual(
        (await connection.query("SELECT * FROM drafts WHERE id = $1", [1])).rows,
        [{ id: 1, title: null, due: null }],
        "answered from a fresh connection",
      );
    } finally {
      await connection.close();
    }
  });

  test("a binary array parameter reaches the server as its bytes, prepared or not and inside a transaction on a one-connection pool; a type the database lacks is refused by name", async () => {
    const floats = Float32Array.from([0.1, -2.5, 1e-7, 3.4028234663852886e38, 1.401298464324817e-45, -7.5]);
    // Its text form is deliberately another array: what the server reads shows which form was sent.
    const param = {
      elementType: "float4",
      toPostgresBinary: (element: ArrayElementType) => encodeFloat4Array(floats, element),
      toPostgres: () => "{999}",
    };
    const readBack = (text: string) => Float32Array.from(text.slice(1, -1).split(",").map(Number));
    for (const preparedStatements of [true, false]) {
      const connection = await createPostgresConnection({
        url: database.url,
        poolMax: 1,
        preparedStatements,
        logger: createLogger("statements-test", "silent"),
      });
      try {
        const { rows } = await connection.query<{ numbers: string; kind: string }>(
          "SELECT ($1::real[])::text AS numbers, $2::text AS kind",
          [param, "floats"],
        );
        assert.deepEqual(readBack(rows[0]!.numbers), floats, `prepared: ${preparedStatements}`);
        assert.equal(rows[0]?.kind, "floats");
        const inTransaction = await connection.transaction((tx) =>
          tx.query<{ n: number }>("SELECT cardinality($1::real[]) AS n", [param]),
        );
        assert.equal(inTransaction.rows[0]?.n, floats.length);
        const vectors = { ...param, elementType: "vector" };
        await assert.rejects(
          connection.query("SELECT $1::text AS x", [vectors]),
          /a binary vector\[\] parameter, but the database has no type vector/,
        );
      } finally {
        await connection.close();
      }
    }
  });
});
