import { defineDomainSuite, postgresServerTarget } from "./domain-suite.js";
import { defineMemoryMirrorTests } from "./store-memory-mirrors-suite.js";

defineDomainSuite("memory mirrors", postgresServerTarget(), defineMemoryMirrorTests);
