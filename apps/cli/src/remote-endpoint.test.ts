import { test } from "node:test";
import assert from "node:assert/strict";
import { resolveRemoteEndpoint } from "./remote-endpoint.js";

/** Resolves with the given options and collects what would go to stderr. */
function resolveWith(url: string, options: { token?: string; insecure?: boolean } = {}, env: NodeJS.ProcessEnv = {}) {
  const warnings: string[] = [];
  const endpoint = resolveRemoteEndpoint(
    "smoke",
    { url, token: options.token, insecure: options.insecure },
    env,
    (text) => warnings.push(text),
  );
  return { endpoint, warnings };
}

test("plain http to a host that is not a loopback literal is refused without --insecure", () => {
  for (const url of [
    "http://context.example.com/mcp",
    "http://127.evil.example/mcp",
    "http://10.0.0.5:8080/mcp",
    "http://127.0.0.1.nip.io/mcp",
  ]) {
    const { endpoint } = resolveWith(url, { token: "chk_secret" });
    assert.equal(endpoint.ok, false, url);
    assert.match(
      !endpoint.ok ? endpoint.message : "",
      /is plain http to a host that is not loopback[^]*Use https:\/\/, or add --insecure/,
      url,
    );
  }
});

test("https anywhere, and http on loopback, need no flag; --insecure allows http with a warning", () => {
  for (const url of [
    "https://context.example.com/mcp",
    "http://127.0.0.1:8080/mcp",
    "http://localhost:8080/mcp",
    "http://[::1]:8080/mcp",
  ]) {
    const { endpoint, warnings } = resolveWith(url);
    assert.equal(endpoint.ok, true, url);
    assert.deepEqual(warnings, [], url);
  }
  const { endpoint, warnings } = resolveWith("http://gateway.context-hub.svc:8080/mcp", { insecure: true });
  assert.equal(endpoint.ok, true);
  assert.match(
    warnings.join(""),
    /--insecure: sending the credential over plain http to gateway\.context-hub\.svc:8080/,
  );
});

test("--token works but warns that it shows in ps; CONTEXT_HUB_TOKEN does not warn", () => {
  const flagged = resolveWith(
    "https://context.example.com/mcp",
    { token: "chk_from_flag" },
    { CONTEXT_HUB_TOKEN: "chk_from_env" },
  );
  assert.equal(flagged.endpoint.ok && flagged.endpoint.token, "chk_from_flag");
  assert.match(
    flagged.warnings.join(""),
    /context-hub smoke: --token shows in the process list \(ps\)[^]*set CONTEXT_HUB_TOKEN instead/,
  );
  assert.doesNotMatch(flagged.warnings.join(""), /chk_from_flag/, "the warning never repeats the credential");
  const fromEnv = resolveWith("https://context.example.com/mcp", {}, { CONTEXT_HUB_TOKEN: "chk_from_env" });
  assert.equal(fromEnv.endpoint.ok && fromEnv.endpoint.token, "chk_from_env");
  assert.deepEqual(fromEnv.warnings, []);
  const none = resolveWith("https://context.example.com/mcp", {}, { CONTEXT_HUB_TOKEN: "" });
  assert.equal(none.endpoint.ok && none.endpoint.token, undefined);
});

test("a URL that is not http(s) is refused by name", () => {
  const bad = resolveWith("not a url");
  assert.match(!bad.endpoint.ok ? bad.endpoint.message : "", /--url "not a url" is not a URL/);
  const ftp = resolveWith("ftp://context.example.com/mcp");
  assert.match(!ftp.endpoint.ok ? ftp.endpoint.message : "", /--url must be an http:\/\/ or https:\/\/ URL/);
});
