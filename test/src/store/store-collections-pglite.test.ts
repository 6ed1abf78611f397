import { defineDomainSuite, pgliteMemoryTarget } from "./domain-suite.js";
import { defineCollectionTests } from "./store-collections-suite.js";

defineDomainSuite("collections", pgliteMemoryTarget, defineCollectionTests);
