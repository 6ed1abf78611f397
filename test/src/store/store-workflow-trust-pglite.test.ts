import { defineDomainSuite, pgliteMemoryTarget } from "./domain-suite.js";
import { defineWorkflowTrustTests } from "./store-workflow-trust-suite.js";

defineDomainSuite("workflow trust", pgliteMemoryTarget, defineWorkflowTrustTests);
