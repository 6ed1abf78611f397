import { defineRetrievalSuite } from "./retrieval-suite.js";

defineRetrievalSuite({
  name: "PGlite (memory://, pgvector)",
  async createDatabase() {
    return { options: { url: "", dataDir: "memory://", poolMax: 1 }, dispose: async () => undefined };
  },
});
