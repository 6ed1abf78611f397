import { defineDomainSuite, pgliteMemoryTarget } from "./domain-suite.js";
import { defineHandoffTests } from "./store-handoffs-suite.js";

defineDomainSuite("handoffs", pgliteMemoryTarget, defineHandoffTests);
