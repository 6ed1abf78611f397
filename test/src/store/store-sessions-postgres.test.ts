import { startTestPostgres } from "../support/postgres.js";
import { defineSessionSuite } from "./store-sessions-target.js";

defineSessionSuite({
  name: "PostgreSQL server",
  persistent: true,
  async createDatabase() {
    const database = await startTestPostgres();
    // More connections than concurrent appenders, so all 16 of them wait on the session row at once.
    return { options: { url: database.url, dataDir: "", poolMax: 20 }, dispose: () => database.close() };
  },
  expectedVectorType: async () => "pgvector",
});
