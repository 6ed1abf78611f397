import { defineDomainSuite, pgliteMemoryTarget } from "./domain-suite.js";
import { defineMemoryTests } from "./store-memories-suite.js";

defineDomainSuite("memories", pgliteMemoryTarget, defineMemoryTests);
