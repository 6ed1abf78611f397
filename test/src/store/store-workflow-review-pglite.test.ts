import { defineDomainSuite, pgliteMemoryTarget } from "./domain-suite.js";
import { defineWorkflowReviewTests } from "./store-workflow-review-suite.js";

defineDomainSuite("workflow review", pgliteMemoryTarget, defineWorkflowReviewTests);
