import { defineDomainSuite, postgresServerTarget } from "./domain-suite.js";
import { defineSessionAccessTests } from "./store-sessions-access-suite.js";
import { defineSessionTests } from "./store-sessions-suite.js";

// More connections than concurrent appenders, so all 16 of them wait on the session row at once.
defineDomainSuite("session logs", postgresServerTarget(20), (context) => {
  defineSessionTests(context);
  defineSessionAccessTests(context);
});
