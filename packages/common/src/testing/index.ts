// Test helpers of @context-hub/common, imported as "@context-hub/common/testing"; production code never loads them.
export * from "./growth-rate.js";
export * from "./recording-http-server.js";
export * from "./heading-texts.js";
export * from "./wait-for.js";
export * from "./fake-clock.js";
export * from "./refusal.js";
