import { defineDomainSuite, postgresServerTarget } from "./domain-suite.js";
import { defineWorkflowTrustTests } from "./store-workflow-trust-suite.js";

defineDomainSuite("workflow trust", postgresServerTarget(), defineWorkflowTrustTests);
