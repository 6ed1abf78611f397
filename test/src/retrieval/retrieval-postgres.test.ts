import { after, before } from "node:test";
import { startTestPostgres, type TestPostgres } from "../support/postgres.js";
import { defineRetrievalSuite } from "./retrieval-suite.js";

// One server for the whole file: every database below is created on it, so it starts once.
let server: TestPostgres;
before(async () => {
  server = await startTestPostgres();
});
after(async () => {
  await server?.close();
});

defineRetrievalSuite({
  name: "PostgreSQL server",
  async createDatabase() {
    const database = await startTestPostgres();
    return { options: { url: database.url, dataDir: "", poolMax: 10 }, dispose: () => database.close() };
  },
});
