import { after, before } from "node:test";
import { startTestPostgres, type TestPostgres } from "../support/postgres.js";
import { defineTrustStoreSuite } from "./trust-store-suite.js";

// Keeps the shared server up for the whole file: the suite's database is created on it.
let server: TestPostgres;
before(async () => {
  server = await startTestPostgres();
});
after(async () => {
  await server?.close();
});

defineTrustStoreSuite({
  name: "PostgreSQL server",
  persistent: true,
  async createDatabase() {
    const database = await startTestPostgres();
    return { options: { url: database.url, dataDir: "", poolMax: 10 }, dispose: () => database.close() };
  },
  expectedVectorType: async () => "real[]",
});
