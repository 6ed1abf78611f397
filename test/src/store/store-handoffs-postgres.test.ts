import { startTestPostgres } from "../support/postgres.js";
import { defineHandoffSuite } from "./store-handoffs-target.js";

defineHandoffSuite({
  name: "PostgreSQL server",
  persistent: true,
  async createDatabase() {
    const database = await startTestPostgres();
    return { options: { url: database.url, dataDir: "", poolMax: 10 }, dispose: () => database.close() };
  },
  expectedVectorType: async () => "pgvector",
});
