import { defineDomainSuite, postgresServerTarget } from "./domain-suite.js";
import { defineArtifactAccessTests } from "./store-artifacts-access-suite.js";
import { defineArtifactEntryLinkTests } from "./store-artifacts-entry-links-suite.js";
import { defineArtifactTests } from "./store-artifacts-suite.js";

defineDomainSuite("artifacts", postgresServerTarget(), (context) => {
  defineArtifactTests(context);
  defineArtifactAccessTests(context);
  defineArtifactEntryLinkTests(context);
});
