import { startTestPostgres } from "../support/postgres.js";
import { defineMemorySuite } from "./store-memories-target.js";

defineMemorySuite({
  name: "PostgreSQL server",
  persistent: true,
  async createDatabase() {
    const database = await startTestPostgres();
    return { options: { url: database.url, dataDir: "", poolMax: 10 }, dispose: () => database.close() };
  },
  expectedVectorType: async () => "pgvector",
});
