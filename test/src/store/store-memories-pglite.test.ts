import { defineMemorySuite } from "./store-memories-target.js";

defineMemorySuite({
  name: "PGlite (memory://)",
  persistent: false,
  async createDatabase() {
    return { options: { url: "", dataDir: "memory://", poolMax: 1 }, dispose: async () => undefined };
  },
  expectedVectorType: async () => "pgvector",
});
