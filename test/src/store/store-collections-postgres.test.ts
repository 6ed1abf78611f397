import { defineDomainSuite, postgresServerTarget } from "./domain-suite.js";
import { defineCollectionTests } from "./store-collections-suite.js";

defineDomainSuite("collections", postgresServerTarget(), defineCollectionTests);
