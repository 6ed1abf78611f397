import { defineDomainSuite, pgliteMemoryTarget } from "./domain-suite.js";
import { definePublicationTests } from "./store-publications-suite.js";

defineDomainSuite("publications", pgliteMemoryTarget, definePublicationTests);
