import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { AllInOne } from "@context-hub/cli";
import { startMemoryHub } from "../support/memory-hub.js";

describe("the gateway's HTTP surface", () => {
  let hub: AllInOne;
  let base: string;

  before(async () => {
    hub = await startMemoryHub();
    base = hub.url.replace(/\/mcp$/, "");
  });
  after(() => hub?.close());

  const initialize = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "curl", version: "1" } } };

  test("GET and DELETE on /mcp answer 405", async () => {
    for (const method of ["GET", "DELETE"]) {
      const response = await fetch(`${base}/mcp`, { method });
      assert.equal(response.status, 405, method);
      assert.equal(response.headers.get("allow"), "POST");
    }
  });

  test("JSON or SSE by the Accept header", async () => {
    const json = await fetch(`${base}/mcp`, { method: "POST", headers: { "content-type": "application/json", accept: "application/json" }, body: JSON.stringify(initialize) });
    assert.equal(json.status, 200);
    assert.match(json.headers.get("content-type") ?? "", /application\/json/);
    assert.equal(((await json.json()) as { result: { serverInfo: { name: string } } }).result.serverInfo.name, "context-hub");

    const sse = await fetch(`${base}/mcp`, { method: "POST", headers: { "content-type": "application/json", accept: "text/event-stream, application/json" }, body: JSON.stringify(initialize) });
    assert.equal(sse.status, 200);
    assert.match(sse.headers.get("content-type") ?? "", /text\/event-stream/);
    assert.match(await sse.text(), /context-hub/);
  });

  test("a foreign browser Origin is refused", async () => {
    const response = await fetch(`${base}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json", origin: "https://evil.example" },
      body: JSON.stringify(initialize),
    });
    assert.equal(response.status, 403);
    const allowed = await fetch(`${base}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json", origin: "http://localhost:3000" },
      body: JSON.stringify(initialize),
    });
    assert.equal(allowed.status, 200);
  });

  test("malformed JSON gets a JSON-RPC parse error with a request id", async () => {
    const response = await fetch(`${base}/mcp`, { method: "POST", headers: { "content-type": "application/json", accept: "application/json" }, body: "{not json" });
    assert.equal(response.status, 400);
    const body = (await response.json()) as { error: { code: number; data: { request_id: string } } };
    assert.equal(body.error.code, -32700);
    assert.ok(body.error.data.request_id);
  });

  test("health, readiness and metrics", async () => {
    assert.equal((await fetch(`${base}/healthz`)).status, 200);
    const ready = await fetch(`${base}/readyz`);
    assert.equal(ready.status, 200);
    const metrics = await (await fetch(`${base}/metrics`)).text();
    assert.match(metrics, /grpc_client_handling_seconds/);
    assert.match(metrics, /process_resident_memory_bytes/);
  });
});
