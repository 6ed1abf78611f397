import { defineBm25PruningSuite } from "./bm25-pruning-suite.js";

defineBm25PruningSuite({
  name: "PGlite (memory://)",
  async createDatabase() {
    return { options: { url: "", dataDir: "memory://", poolMax: 1 }, dispose: async () => undefined };
  },
});
