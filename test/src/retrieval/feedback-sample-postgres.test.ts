import { startTestPostgres } from "../support/postgres.js";
import { defineFeedbackSampleSuite } from "./feedback-sample-suite.js";

defineFeedbackSampleSuite({
  name: "PostgreSQL server",
  async createDatabase() {
    const database = await startTestPostgres();
    return { options: { url: database.url, dataDir: "", poolMax: 10 }, dispose: () => database.close() };
  },
});
