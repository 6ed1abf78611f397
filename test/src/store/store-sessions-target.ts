/** Runs the session log tests alone against one database target: a store of their own, without the rest of the store suite. */
import { after, before, describe } from "node:test";
import type { SqlDatabase } from "@context-hub/store";
import {
  logger,
  openDatabase,
  startTestStore,
  type StartedStore,
  type StoreSuiteContext,
  type StoreTarget,
} from "./store-fixtures.js";
import { defineSessionAccessTests } from "./store-sessions-access-suite.js";
import { defineSessionTests } from "./store-sessions-suite.js";

export function defineSessionSuite(target: StoreTarget): void {
  describe(`session logs on ${target.name}`, () => {
    let database: Awaited<ReturnType<StoreTarget["createDatabase"]>>;
    let db: SqlDatabase;
    let store: StartedStore;
    before(async () => {
      database = await target.createDatabase();
      db = await openDatabase(database.options, logger);
      store = await startTestStore(database.options, db);
    });
    after(async () => {
      await store?.close();
      await db?.close();
      await database?.dispose();
    });
    const context: StoreSuiteContext = {
      target,
      get client() {
        return store.client;
      },
      get db() {
        return db;
      },
      get options() {
        return database.options;
      },
    };
    defineSessionTests(context);
    defineSessionAccessTests(context);
  });
}
