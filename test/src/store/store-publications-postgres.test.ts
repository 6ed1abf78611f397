import { defineDomainSuite, postgresServerTarget } from "./domain-suite.js";
import { definePublicationTests } from "./store-publications-suite.js";

defineDomainSuite("publications", postgresServerTarget(), definePublicationTests);
