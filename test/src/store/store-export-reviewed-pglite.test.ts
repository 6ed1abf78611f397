import { defineDomainSuite, pgliteMemoryTarget } from "./domain-suite.js";
import { defineExportReviewedTests } from "./store-export-reviewed-suite.js";

defineDomainSuite("export of reviews", pgliteMemoryTarget, defineExportReviewedTests);
