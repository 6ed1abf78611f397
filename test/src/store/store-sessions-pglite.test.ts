import { defineSessionSuite } from "./store-sessions-target.js";

defineSessionSuite({
  name: "PGlite (memory://)",
  persistent: false,
  async createDatabase() {
    return { options: { url: "", dataDir: "memory://", poolMax: 1 }, dispose: async () => undefined };
  },
  expectedVectorType: async () => "pgvector",
});
