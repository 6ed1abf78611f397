import { defineFeedbackSampleSuite } from "./feedback-sample-suite.js";

defineFeedbackSampleSuite({
  name: "PGlite (memory://)",
  async createDatabase() {
    return { options: { url: "", dataDir: "memory://", poolMax: 1 }, dispose: async () => undefined };
  },
});
