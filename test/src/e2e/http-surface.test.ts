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

  const initialize = {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "curl", version: "1" } },
  };

  test("GET /mcp is a session's event stream, refused without one or without accepting it; DELETE answers 405", async () => {
    const notAccepting = await fetch(`${base}/mcp`, { headers: { "mcp-session-id": "abc" } });
    assert.equal(notAccepting.status, 406);
    const noSession = await fetch(`${base}/mcp`, { headers: { accept: "text/event-stream" } });
    assert.equal(noSession.status, 400);
    const deleted = await fetch(`${base}/mcp`, { method: "DELETE", headers: { "mcp-session-id": "abc" } });
    assert.equal(deleted.status, 405);
    assert.equal(deleted.headers.get("allow"), "GET, POST");

    const initialized = await fetch(`${base}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify(initialize),
    });
    const sessionId = initialized.headers.get("mcp-session-id") ?? "";
    assert.match(sessionId, /^[0-9a-f]{32}$/);
    const abort = new AbortController();
    const stream = await fetch(`${base}/mcp`, {
      headers: { accept: "text/event-stream", "mcp-session-id": sessionId },
      signal: abort.signal,
    });
    assert.equal(stream.status, 200);
    assert.equal(stream.headers.get("content-type"), "text/event-stream");
    assert.equal(stream.headers.get("mcp-session-id"), sessionId);
    abort.abort();
  });

  test("JSON or SSE by the Accept header", async () => {
    const json = await fetch(`${base}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify(initialize),
    });
    assert.equal(json.status, 200);
    assert.match(json.headers.get("content-type") ?? "", /application\/json/);
    assert.equal(
      ((await json.json()) as { result: { serverInfo: { name: string } } }).result.serverInfo.name,
      "context-hub",
    );

    const sse = await fetch(`${base}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream, application/json" },
      body: JSON.stringify(initialize),
    });
    assert.equal(sse.status, 200);
    assert.match(sse.headers.get("content-type") ?? "", /text\/event-stream/);
    assert.match(await sse.text(), /context-hub/);
  });

  const post = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${base}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      body: JSON.stringify(body),
    });
  const ping = (id: number | string) => ({ jsonrpc: "2.0", id, method: "ping" });

  test("a batch is answered in its requests' order, as one JSON array or as one event per answer", async () => {
    const batch = [ping("b"), { jsonrpc: "2.0", method: "notifications/initialized" }, ping(7)];
    const json = await post(batch);
    assert.equal(json.status, 200);
    assert.deepEqual(
      ((await json.json()) as { id: unknown }[]).map((answer) => answer.id),
      ["b", 7],
    );
    const sse = await post(batch, { accept: "text/event-stream, application/json" });
    assert.match(sse.headers.get("content-type") ?? "", /text\/event-stream/);
    const events = (await sse.text()).split("\n\n").filter((event) => event.startsWith("event: message"));
    assert.deepEqual(
      events.map((event) => (JSON.parse(event.slice(event.indexOf("data: ") + 6)) as { id: unknown }).id),
      ["b", 7],
    );
  });

  test("a batch that repeats a request id is answered once per id, in either form, and the gateway keeps serving", async () => {
    for (const accept of ["application/json", "text/event-stream, application/json"]) {
      const response = await post([ping(1), ping(1), ping(2)], { accept });
      assert.equal(response.status, 200, accept);
      const text = await response.text();
      assert.equal(text.match(/"id":1\b/g)?.length, 1, `${accept}: ${text}`);
      assert.match(text, /"id":2\b/, accept);
    }
    assert.equal((await post(ping(3))).status, 200);
  });

  test("notifications alone are accepted with 202 and no body", async () => {
    const response = await post({ jsonrpc: "2.0", method: "notifications/initialized" });
    assert.equal(response.status, 202);
    assert.equal(await response.text(), "");
  });

  test("what the transport cannot take is refused with the status and code the specification gives", async () => {
    const cases: [string, Response, number, number][] = [
      [
        "not JSON",
        await fetch(`${base}/mcp`, {
          method: "POST",
          headers: { "content-type": "text/plain", accept: "application/json" },
          body: JSON.stringify(ping(1)),
        }),
        415,
        -32000,
      ],
      ["not JSON-RPC", await post({ jsonrpc: "1.0", id: 1, method: "ping" }), 400, -32700],
      ["a batch over 100", await post(Array.from({ length: 101 }, (_, index) => ping(index))), 400, -32600],
      ["two initializations", await post([initialize, { ...initialize, id: 2 }]), 400, -32600],
      ["an unknown protocol version", await post(ping(1), { "mcp-protocol-version": "1999-01-01" }), 400, -32000],
    ];
    for (const [what, response, status, code] of cases) {
      assert.equal(response.status, status, what);
      const body = (await response.json()) as {
        error: { code: number; message: string; data: { request_id: string } };
      };
      assert.equal(body.error.code, code, what);
      assert.ok(body.error.data.request_id, what);
    }
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
    const response = await fetch(`${base}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: "{not json",
    });
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
