import { defineBm25Suite } from "./bm25-suite.js";

defineBm25Suite({
  name: "PGlite (memory://)",
  async createDatabase() {
    return { options: { url: "", dataDir: "memory://", poolMax: 1 }, dispose: async () => undefined };
  },
});
