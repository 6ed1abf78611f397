import { defineDomainSuite, postgresServerTarget } from "./domain-suite.js";
import { definePromptNameTests } from "./store-prompt-names-suite.js";

defineDomainSuite("prompt names", postgresServerTarget(), definePromptNameTests);
