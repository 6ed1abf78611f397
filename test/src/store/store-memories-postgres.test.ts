import { defineDomainSuite, postgresServerTarget } from "./domain-suite.js";
import { defineMemoryTests } from "./store-memories-suite.js";

defineDomainSuite("memories", postgresServerTarget(), defineMemoryTests);
