import { test } from "node:test";
import assert from "node:assert/strict";
import { ContextHubError, createLogger, errorCodes, runWithRequestContext } from "@context-hub/common";
import { loadGatewayConfig, startGateway } from "./index.js";
import { toolFailure } from "./mcp/tool-result.js";

const logger = createLogger("test", "silent");

test("without authentication the gateway refuses a non-loopback address", async () => {
  const config = loadGatewayConfig({ GATEWAY_HOST: "0.0.0.0", GATEWAY_PORT: "0" });
  await assert.rejects(startGateway(config, logger), /Refusing to serve 0\.0\.0\.0 without authentication/);
});

test("an explicit opt-in allows a non-loopback bind", async () => {
  const config = loadGatewayConfig({
    GATEWAY_HOST: "0.0.0.0",
    GATEWAY_PORT: "0",
    CONTEXT_HUB_ALLOW_NON_LOOPBACK: "true",
  });
  const gateway = await startGateway(config, logger);
  await gateway.close();
});

test("every domain error becomes a tool error with its code and a request id", () => {
  for (const code of errorCodes) {
    const result = runWithRequestContext({ requestId: "rid-1" }, () =>
      toolFailure(new ContextHubError(code, "something specific"), logger),
    );
    assert.equal(result.isError, true);
    const text = result.content.map((part) => (part.type === "text" ? part.text : "")).join("\n");
    assert.match(text, /rid-1/);
    if (code === "INTERNAL") assert.doesNotMatch(text, /something specific/);
    else assert.match(text, new RegExp(`^${code}: something specific`));
  }
});

test("an unexpected exception is shown only as a request id", () => {
  const result = runWithRequestContext({ requestId: "rid-2" }, () =>
    toolFailure(new Error('relation "entries" does not exist'), logger),
  );
  const text = result.content.map((part) => (part.type === "text" ? part.text : "")).join("\n");
  assert.doesNotMatch(text, /relation/);
  assert.match(text, /rid-2/);
});

test("configuration errors name every bad variable", () => {
  assert.throws(
    () => loadGatewayConfig({ GATEWAY_PORT: "http", CONTEXT_HUB_AUTH: "maybe" }),
    (error: Error) => /GATEWAY_PORT/.test(error.message) && /CONTEXT_HUB_AUTH/.test(error.message),
  );
});
