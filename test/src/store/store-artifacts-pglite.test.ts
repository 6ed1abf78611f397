import { defineDomainSuite, pgliteMemoryTarget } from "./domain-suite.js";
import { defineArtifactAccessTests } from "./store-artifacts-access-suite.js";
import { defineArtifactEntryLinkTests } from "./store-artifacts-entry-links-suite.js";
import { defineArtifactTests } from "./store-artifacts-suite.js";

defineDomainSuite("artifacts", pgliteMemoryTarget, (context) => {
  defineArtifactTests(context);
  defineArtifactAccessTests(context);
  defineArtifactEntryLinkTests(context);
});
