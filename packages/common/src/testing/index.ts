// Test helpers of @context-hub/common, imported as "@context-hub/common/testing"; production code never loads them.
export * from "./recording-http-server.js";
export * from "./growth.js";
