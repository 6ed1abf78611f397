import { test } from "node:test";
import assert from "node:assert/strict";
import { costOf, isToolCallRequest, overBudget, throttleKeyOf } from "./metering.js";

const call = (name: string) => ({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: {} } });

test("every message costs one token: tool calls that change something on write, everything else on read", () => {
  const writeTools = new Set(["store_context", "delete_context"]);
  assert.deepEqual(costOf([call("store_context")], writeTools), { read: 0, write: 1 });
  assert.deepEqual(costOf([call("search_context")], writeTools), { read: 1, write: 0 });
  const batch = [
    { jsonrpc: "2.0", id: 1, method: "initialize", params: {} },
    { jsonrpc: "2.0", method: "notifications/initialized" },
    { jsonrpc: "2.0", id: 2, method: "tools/list" },
    { jsonrpc: "2.0", id: 3, method: "ping" },
    call("no_such_tool"),
    call("delete_context"),
    call("store_context"),
  ];
  assert.deepEqual(costOf(batch, writeTools), { read: 5, write: 2 });
});

test("the refusal says when to retry, or that a request larger than the burst never fits", () => {
  const budget = { perMinute: 60, burst: 5 };
  assert.match(
    overBudget({ ok: false, name: "read", budget, wanted: 1, retryAfterSeconds: 3 }).message,
    /^Too many read calls: your budget is 60 per minute with bursts of 5\. Retry in 3 s\.$/,
  );
  const tooBig = overBudget({ ok: false, name: "write", budget, wanted: 9, retryAfterSeconds: 5 });
  assert.match(tooBig.message, /This request holds 9 write messages, more than your burst of 5/);
  assert.equal(tooBig.remedy, "send at most 5 write messages per request");
});

test("failed authentications are counted per IPv4 address and per IPv6 /64", () => {
  assert.equal(throttleKeyOf("203.0.113.7"), "203.0.113.7");
  assert.equal(throttleKeyOf("::ffff:203.0.113.7"), "203.0.113.7", "an IPv4-mapped address is its IPv4 address");
  assert.equal(throttleKeyOf("2001:db8:1:2:aaaa::1"), "2001:db8:1:2::/64");
  assert.equal(
    throttleKeyOf("2001:0db8:0001:0002:ffff:ffff:ffff:fffe"),
    "2001:db8:1:2::/64",
    "every address of one /64 shares a budget",
  );
  assert.equal(throttleKeyOf("2001:db8::1"), "2001:db8:0:0::/64");
  assert.equal(throttleKeyOf("::1"), "0:0:0:0::/64");
  assert.notEqual(throttleKeyOf("2001:db8:1:3::1"), throttleKeyOf("2001:db8:1:2::1"));
  assert.equal(throttleKeyOf("unknown"), "unknown");
});

test("a tools/call request is recognised before validation", () => {
  assert.equal(isToolCallRequest({ jsonrpc: "2.0", id: 1, method: "tools/call" }), true);
  assert.equal(isToolCallRequest({ jsonrpc: "2.0", id: "a", method: "tools/call", params: {} }), true);
  assert.equal(isToolCallRequest({ jsonrpc: "2.0", method: "tools/call" }), false, "a notification gets no answer");
  assert.equal(isToolCallRequest({ jsonrpc: "2.0", id: 1, method: "ping" }), false);
  assert.equal(isToolCallRequest(null), false);
  assert.equal(isToolCallRequest("tools/call"), false);
});
