import { defineDomainSuite, postgresServerTarget } from "./domain-suite.js";
import { defineMemoryReviewTests } from "./store-memory-review-suite.js";

defineDomainSuite("memory review", postgresServerTarget(), defineMemoryReviewTests);
