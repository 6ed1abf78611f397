import { defineDomainSuite, postgresServerTarget } from "./domain-suite.js";
import { defineHandoffTests } from "./store-handoffs-suite.js";

defineDomainSuite("handoffs", postgresServerTarget(), defineHandoffTests);
