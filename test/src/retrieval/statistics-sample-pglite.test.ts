import { defineStatisticsSampleSuite } from "./statistics-sample-suite.js";

defineStatisticsSampleSuite({
  name: "PGlite (memory://)",
  async createDatabase() {
    return { options: { url: "", dataDir: "memory://", poolMax: 1 }, dispose: async () => undefined };
  },
});
