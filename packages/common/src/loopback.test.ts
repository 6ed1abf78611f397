import { test } from "node:test";
import assert from "node:assert/strict";
import { isLoopbackHost, isLoopbackUrl } from "./loopback.js";

test("loopback literals are loopback", () => {
  for (const host of [
    "localhost",
    "LOCALHOST",
    "127.0.0.1",
    "127.255.3.4",
    "::1",
    "[::1]",
    "0:0:0:0:0:0:0:1",
    "[::ffff:127.0.0.1]",
    "::ffff:7f00:1",
  ]) {
    assert.equal(isLoopbackHost(host), true, host);
  }
});

test("DNS names that look like loopback, and other addresses, are not", () => {
  for (const host of [
    "127.evil.com",
    "127.0.0.1.nip.io",
    "127.0.0.1.",
    "127.0.0.256",
    "localhost.evil.com",
    "evil-localhost",
    "0.0.0.0",
    "::",
    "10.0.0.1",
    "[::2]",
    "::ffff:10.0.0.1",
    "",
    "128.0.0.1",
  ]) {
    assert.equal(isLoopbackHost(host), false, host);
  }
});

test("a URL is loopback by its parsed host", () => {
  assert.equal(isLoopbackUrl("http://127.0.0.1:8080/mcp"), true);
  assert.equal(isLoopbackUrl("http://[::1]:8080/mcp"), true);
  assert.equal(isLoopbackUrl("http://localhost/mcp"), true);
  // The URL parser turns numeric shorthands into dotted quads before the check.
  assert.equal(isLoopbackUrl("http://2130706433/mcp"), true);
  assert.equal(isLoopbackUrl("http://127.evil.com/mcp"), false);
  assert.equal(isLoopbackUrl("http://127.0.0.1@evil.com/mcp"), false, "userinfo is not the host");
  assert.equal(isLoopbackUrl("not a url"), false);
});
