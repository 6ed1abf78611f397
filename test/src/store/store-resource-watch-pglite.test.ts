import { defineDomainSuite, pgliteMemoryTarget } from "./domain-suite.js";
import { defineResourceWatchTests } from "./store-resource-watch-suite.js";

defineDomainSuite("resource watches", pgliteMemoryTarget, defineResourceWatchTests);
