import { startTestPostgres } from "../support/postgres.js";
import { defineBm25PruningSuite } from "./bm25-pruning-suite.js";

defineBm25PruningSuite({
  name: "PostgreSQL server",
  async createDatabase() {
    const database = await startTestPostgres();
    return { options: { url: database.url, dataDir: "", poolMax: 10 }, dispose: () => database.close() };
  },
});
