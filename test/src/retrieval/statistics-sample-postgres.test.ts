import { startTestPostgres } from "../support/postgres.js";
import { defineStatisticsSampleSuite } from "./statistics-sample-suite.js";

defineStatisticsSampleSuite({
  name: "PostgreSQL server",
  async createDatabase() {
    const database = await startTestPostgres();
    return { options: { url: database.url, dataDir: "", poolMax: 10 }, dispose: () => database.close() };
  },
});
