import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { generateApiKey } from "@context-hub/common";
import type { AllInOne } from "@context-hub/cli";
import { startMemoryHub } from "../support/memory-hub.js";
import { readWrite, writeKeysFile } from "../support/principals.js";
import { startGatewayOn, toolRuns, type TestGateway } from "./gateways.js";

/**
 * Metering before work, over real HTTP: every JSON-RPC message of every
 * method draws on the caller's budget before anything runs; failed
 * authentications are throttled per client address before any key lookup;
 * the body limit follows the caller's scopes and is checked only after the
 * caller is known.
 */

interface Answer {
  status: number;
  retryAfter: string | null;
  body: unknown;
}

async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return {
    status: response.status,
    retryAfter: response.headers.get("retry-after"),
    body: text === "" ? undefined : JSON.parse(text),
  };
}

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const request = (id: number, method: string, params: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0",
  id,
  method,
  params,
});
const initialize = (id: number) =>
  request(id, "initialize", {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "metering-test", version: "0" },
  });
const storeCall = (id: number, text: string) =>
  request(id, "tools/call", { name: "store_context", arguments: { thread_id: "metering", source: "agent", text } });
const errorMessage = (answer: Answer) =>
  (answer.body as { error?: { message?: string } } | undefined)?.error?.message ?? "";

/** How many times the gateways in this process asked the store for an API key. */
async function keyLookups(base: string): Promise<number> {
  const metrics = await (await fetch(`${base}/metrics`)).text();
  let total = 0;
  for (const match of metrics.matchAll(/^grpc_client_handling_seconds_count\{([^}]*)\} (\d+)$/gm)) {
    if (match[1]!.includes('grpc_method="LookupApiKey"')) total += Number(match[2]);
  }
  return total;
}

describe("metering before work", () => {
  let hub: AllInOne;
  let keys: ReturnType<typeof writeKeysFile>;
  let gateway: TestGateway;

  before(async () => {
    keys = writeKeysFile([
      { name: "reader", tenant: "acme", subject: "reader", groups: [], scopes: ["context:read"] },
      { name: "other", tenant: "acme", subject: "other-reader", groups: [], scopes: ["context:read"] },
      { name: "batcher", tenant: "acme", subject: "batcher", groups: [], scopes: ["context:read"] },
      { name: "sloppy", tenant: "acme", subject: "sloppy", groups: [], scopes: ["context:read"] },
      { name: "writer", tenant: "acme", subject: "writer", groups: [], scopes: readWrite },
      { name: "rester", tenant: "acme", subject: "rester", groups: [], scopes: readWrite },
    ]);
    hub = await startMemoryHub({ CONTEXT_HUB_AUTH: "none" });
    gateway = await startGatewayOn(hub, {
      CONTEXT_HUB_AUTH: "api-key",
      CONTEXT_HUB_API_KEYS_FILE: keys.path,
      CONTEXT_HUB_RATE_READ_PER_MIN: "1",
      CONTEXT_HUB_RATE_READ_BURST: "4",
      CONTEXT_HUB_RATE_WRITE_PER_MIN: "1",
      CONTEXT_HUB_RATE_WRITE_BURST: "2",
      CONTEXT_HUB_MAX_READ_BODY_BYTES: String(64 * 1024),
    });
  });
  after(async () => {
    await gateway?.close();
    await hub?.close();
    keys?.dispose();
  });

  test("initialize, notifications, tools/list and ping each draw on the read budget; over it, 429 with Retry-After", async () => {
    const reader = bearer(keys.principals.reader!.key);
    assert.equal((await post(gateway.url, initialize(1), reader)).status, 200);
    assert.equal(
      (await post(gateway.url, { jsonrpc: "2.0", method: "notifications/initialized" }, reader)).status,
      202,
    );
    assert.equal((await post(gateway.url, request(2, "tools/list"), reader)).status, 200);
    assert.equal((await post(gateway.url, request(3, "ping"), reader)).status, 200);
    const refused = await post(gateway.url, request(4, "ping"), reader);
    assert.equal(refused.status, 429);
    assert.match(
      errorMessage(refused),
      /^RATE_LIMITED: Too many read calls: your budget is 1 per minute with bursts of 4\. Retry in (\d+) s\.$/,
    );
    const seconds = Number(refused.retryAfter);
    assert.ok(seconds >= 1 && seconds <= 60, `Retry-After ${refused.retryAfter}`);
    assert.equal(
      (await post(gateway.url, { jsonrpc: "2.0", method: "notifications/initialized" }, reader)).status,
      429,
      "notifications count too",
    );
    assert.equal(
      (await post(gateway.url, request(5, "ping"), bearer(keys.principals.other!.key))).status,
      200,
      "another principal has a budget of its own",
    );
  });

  test("a batch draws one token per message, all or none; a batch larger than the burst is refused as such", async () => {
    const batcher = bearer(keys.principals.batcher!.key);
    const pings = (count: number) => Array.from({ length: count }, (_, index) => request(index + 1, "ping"));
    const tooBig = await post(gateway.url, pings(5), batcher);
    assert.equal(tooBig.status, 429);
    assert.match(
      errorMessage(tooBig),
      /This request holds 5 read messages, more than your burst of 4: it can never fit your budget of 1 per minute/,
    );
    const fits = await post(gateway.url, pings(4), batcher);
    assert.equal(fits.status, 200, "the refused batch took nothing");
    assert.equal((fits.body as unknown[]).length, 4);
    assert.equal((await post(gateway.url, pings(1), batcher)).status, 429, "the four pings spent the burst");
  });

  test("malformed bodies and invalid messages cost a message each, before they are checked", async () => {
    const sloppy = bearer(keys.principals.sloppy!.key);
    assert.equal((await post(gateway.url, "{not json", sloppy)).status, 400);
    assert.equal((await post(gateway.url, { jsonrpc: "1.0", id: 1, method: "ping" }, sloppy)).status, 400);
    assert.equal(
      (await post(gateway.url, [request(1, "ping"), { not: "a message" }], sloppy)).status,
      400,
      "a batch with an invalid message costs every message",
    );
    const refused = await post(gateway.url, "{still not json", sloppy);
    assert.equal(refused.status, 429);
    assert.match(errorMessage(refused), /^RATE_LIMITED: Too many read calls/);
  });

  test("tool calls over the write budget are answered RATE_LIMITED per call, and none of them runs", async () => {
    const writer = bearer(keys.principals.writer!.key);
    const before = await toolRuns(gateway.base, "store_context");
    assert.equal((await post(gateway.url, storeCall(1, "The first metered write."), writer)).status, 200);
    const refused = await post(
      gateway.url,
      [storeCall(2, "Refused write one."), storeCall(3, "Refused write two.")],
      writer,
    );
    assert.equal(refused.status, 200, "tool calls get tool results a model can read");
    assert.ok(Number(refused.retryAfter) >= 1);
    const results = refused.body as { id: number; result: { isError: boolean; content: { text: string }[] } }[];
    assert.deepEqual(
      results.map((item) => item.id),
      [2, 3],
    );
    for (const item of results) {
      assert.equal(item.result.isError, true);
      assert.match(
        item.result.content[0]!.text,
        /^RATE_LIMITED: Too many write calls: your budget is 1 per minute with bursts of 2\. Retry in \d+ s\./,
      );
      assert.match(item.result.content[0]!.text, /Remedy: wait \d+ s, then retry; nothing was done/);
    }
    // Only the first write ran; the refused ones are counted as rate limited, not run.
    assert.equal((await toolRuns(gateway.base, "store_context")) - before, 1 + 2);
    const listed = await post(
      gateway.url,
      request(9, "tools/call", { name: "search_context", arguments: { thread_id: "metering" } }),
      writer,
    );
    assert.equal(
      (listed.body as { result: { structuredContent: { count: number } } }).result.structuredContent.count,
      1,
      "nothing of the refused batch was stored",
    );
  });

  test("REST calls draw on the same budgets as MCP, one token each; over budget, a 429 problem and nothing runs", async () => {
    const credential = bearer(keys.principals.rester!.key);
    const rest = (method: string, path: string, body?: unknown) =>
      fetch(`${gateway.base}/api/v1${path}`, {
        method,
        headers: { ...credential, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    const store = (text: string) => rest("POST", "/entries", { thread_id: "metering-rest", source: "user", text });
    const before = await toolRuns(gateway.base, "store_context");
    assert.equal((await store("The first REST write.")).status, 201);
    assert.equal((await store("The second REST write.")).status, 201);
    const refusedWrite = await store("A write over the budget.");
    assert.equal(refusedWrite.status, 429);
    assert.ok(Number(refusedWrite.headers.get("retry-after")) >= 1);
    assert.equal(refusedWrite.headers.get("content-type")?.split(";")[0], "application/problem+json");
    const problem = (await refusedWrite.json()) as { code: string; detail: string; remedy: string };
    assert.equal(problem.code, "RATE_LIMITED");
    assert.match(
      problem.detail,
      /^Too many write calls: your budget is 1 per minute with bursts of 2\. Retry in \d+ s\.$/,
    );
    assert.match(problem.remedy, /nothing was done/);
    assert.equal((await toolRuns(gateway.base, "store_context")) - before, 2, "the refused write did not run");

    for (let call = 0; call < 4; call++) assert.equal((await rest("GET", "/threads")).status, 200);
    assert.equal((await rest("GET", "/threads")).status, 429, "the read budget is spent");
    const mcp = await post(gateway.url, request(1, "tools/list"), credential);
    assert.equal(mcp.status, 429, "and it is the same budget over MCP");
  });

  test("a credential without context:write cannot make the gateway parse a large body; a writer can", async () => {
    const padded = (bytes: number) =>
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping", params: { _meta: { pad: "a".repeat(bytes) } } });
    const big = padded(256 * 1024);
    const reader = await post(gateway.url, big, bearer(keys.principals.other!.key));
    assert.equal(reader.status, 413);
    assert.match(
      errorMessage(reader),
      /^Request body exceeds 65536 bytes, the limit for a credential without context:write$/,
    );
    const writer = await post(gateway.url, big, bearer(keys.principals.writer!.key));
    assert.notEqual(writer.status, 413, "a writer's limit is the largest legal write");
    const anonymous = await post(gateway.url, big);
    assert.equal(anonymous.status, 401, "no body is read before the caller is known");
  });
});

describe("failed authentications are throttled per client address", () => {
  let hub: AllInOne;
  let keys: ReturnType<typeof writeKeysFile>;
  let gateway: TestGateway;

  before(async () => {
    keys = writeKeysFile([{ name: "alice", tenant: "acme", subject: "alice", groups: [], scopes: readWrite }]);
    hub = await startMemoryHub({ CONTEXT_HUB_AUTH: "none" });
    gateway = await startGatewayOn(hub, {
      CONTEXT_HUB_AUTH: "api-key",
      CONTEXT_HUB_API_KEYS_FILE: keys.path,
      CONTEXT_HUB_RATE_AUTH_FAILURES_PER_MIN: "1",
      CONTEXT_HUB_RATE_AUTH_FAILURES_BURST: "3",
      // The test speaks for several clients through loopback, as a proxy would.
      CONTEXT_HUB_TRUSTED_PROXIES: "loopback",
    });
  });
  after(async () => {
    await gateway?.close();
    await hub?.close();
    keys?.dispose();
  });

  const from = (address: string, credential?: string) => ({
    "x-forwarded-for": address,
    ...(credential === undefined ? {} : bearer(credential)),
  });

  test("guesses past the budget get 429 with Retry-After before any key lookup", async () => {
    const guesser = "203.0.113.7";
    assert.equal(
      (await post(gateway.url, request(1, "ping"), from(guesser))).status,
      401,
      "a missing credential counts",
    );
    for (let guess = 0; guess < 2; guess++)
      assert.equal((await post(gateway.url, request(1, "ping"), from(guesser, generateApiKey()))).status, 401);
    const lookups = await keyLookups(gateway.base);
    const throttled = await post(gateway.url, request(1, "ping"), from(guesser, generateApiKey()));
    assert.equal(throttled.status, 429);
    assert.match(errorMessage(throttled), /^Too many failed authentications from 203\.0\.113\.7: retry in (\d+) s$/);
    assert.ok(Number(throttled.retryAfter) >= 1);
    for (let guess = 0; guess < 20; guess++)
      assert.equal((await post(gateway.url, request(1, "ping"), from(guesser, generateApiKey()))).status, 429);
    assert.equal(await keyLookups(gateway.base), lookups, "no throttled guess reached the store");
    assert.equal(
      (await post(gateway.url, request(1, "ping"), from(guesser, keys.principals.alice!.key))).status,
      429,
      "an address over its budget waits, whatever it sends",
    );
  });

  test("other addresses are unaffected, and successful authentications never count", async () => {
    assert.equal((await post(gateway.url, request(1, "ping"), from("198.51.100.9", generateApiKey()))).status, 401);
    for (let call = 0; call < 10; call++)
      assert.equal(
        (await post(gateway.url, request(1, "ping"), from("198.51.100.10", keys.principals.alice!.key))).status,
        200,
      );
  });
});
