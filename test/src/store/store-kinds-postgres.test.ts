import { defineDomainSuite, postgresServerTarget } from "./domain-suite.js";
import { defineKindTests } from "./store-kinds-suite.js";

defineDomainSuite("kinds", postgresServerTarget(), defineKindTests);
