import { startTestPostgres } from "../support/postgres.js";
import { defineBm25Suite } from "./bm25-suite.js";

defineBm25Suite({
  name: "PostgreSQL server",
  async createDatabase() {
    const database = await startTestPostgres();
    return { options: { url: database.url, dataDir: "", poolMax: 10 }, dispose: () => database.close() };
  },
});
