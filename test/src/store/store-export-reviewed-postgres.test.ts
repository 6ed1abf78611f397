import { defineDomainSuite, postgresServerTarget } from "./domain-suite.js";
import { defineExportReviewedTests } from "./store-export-reviewed-suite.js";

defineDomainSuite("export of reviews", postgresServerTarget(), defineExportReviewedTests);
