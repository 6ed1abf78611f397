import { defineDomainSuite, pgliteMemoryTarget } from "./domain-suite.js";
import { defineSessionAccessTests } from "./store-sessions-access-suite.js";
import { defineSessionTests } from "./store-sessions-suite.js";

defineDomainSuite("session logs", pgliteMemoryTarget, (context) => {
  defineSessionTests(context);
  defineSessionAccessTests(context);
});
