import { defineDomainSuite, postgresServerTarget } from "./domain-suite.js";
import { defineWorkflowReviewTests } from "./store-workflow-review-suite.js";

defineDomainSuite("workflow review", postgresServerTarget(), defineWorkflowReviewTests);
