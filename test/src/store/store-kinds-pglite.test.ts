import { defineDomainSuite, pgliteMemoryTarget } from "./domain-suite.js";
import { defineKindTests } from "./store-kinds-suite.js";

defineDomainSuite("kinds", pgliteMemoryTarget, defineKindTests);
