// What a transaction promises on both database drivers, PGlite in-process and a real PostgreSQL server through `pg`:
// a statement failure swallowed inside it fails the commit instead of reporting writes that are gone, and its executor
// runs nothing once it has ended.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createLogger } from "@context-hub/common";
import {
  createPgliteConnection,
  createPostgresConnection,
  type SqlConnection,
  type SqlExecutor,
} from "@context-hub/store/testing";
import { startTestPostgres, type TestPostgres } from "../support/postgres.js";

const drivers: { name: string; open(): Promise<{ db: SqlConnection; close(): Promise<void> }> }[] = [
  {
    name: "PGlite",
    async open() {
      const db = await createPgliteConnection({ dataDir: "memory://" });
      return { db, close: () => db.close() };
    },
  },
  {
    name: "PostgreSQL",
    async open() {
      const server: TestPostgres = await startTestPostgres();
      const db = await createPostgresConnection({
        url: server.url,
        poolMax: 2,
        preparedStatements: true,
        logger: createLogger("sql-transactions-test", "silent"),
      });
      return {
        db,
        async close() {
          await db.close();
          await server.close();
        },
      };
    },
  },
];

for (const driver of drivers) {
  describe(`transactions on ${driver.name}`, () => {
    let opened: Awaited<ReturnType<(typeof drivers)[number]["open"]>>;
    const count = async (n: number) =>
      (await opened.db.query<{ n: number }>("SELECT count(*)::integer AS n FROM items WHERE n = $1", [n])).rows[0]?.n;

    before(async () => {
      opened = await driver.open();
      await opened.db.query("CREATE TABLE items (n integer NOT NULL)");
    });

    after(async () => {
      await opened?.close();
    });

    test("a statement failure swallowed without a savepoint fails the commit, and nothing the transaction wrote stays", async () => {
      await assert.rejects(
        opened.db.transaction(async (tx) => {
          await tx.query("INSERT INTO items VALUES ($1)", [1]);
          await tx.query("INSERT INTO items VALUES ($1)", [null]).catch(() => undefined);
        }),
        /rolled back at COMMIT/,
      );
      assert.equal(await count(1), 0);
      await opened.db.transaction(async (tx) => {
        await tx.query("INSERT INTO items VALUES ($1)", [2]);
      });
      assert.equal(await count(2), 1, "the next transaction commits as usual");
    });

    test("an executor kept past the end of its transaction runs nothing", async () => {
      let kept: SqlExecutor | undefined;
      await opened.db.transaction(async (tx) => {
        kept = tx;
      });
      await assert.rejects(kept!.query("INSERT INTO items VALUES ($1)", [3]), /this transaction has ended/);
      assert.equal(await count(3), 0);
    });
  });
}
