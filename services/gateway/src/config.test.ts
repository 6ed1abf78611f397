import { test } from "node:test";
import assert from "node:assert/strict";
import { loadGatewayConfig } from "./config.js";
import { largestCommitBytes, largestEntryBytes, writeBodyLimitBytes } from "./mcp/body-limits.js";

const oidcEnv = {
  CONTEXT_HUB_AUTH: "oidc",
  OIDC_ISSUER: "https://login.example.com/realms/acme",
  CONTEXT_HUB_PUBLIC_URL: "https://context.example.com/mcp",
  OIDC_TENANT_CLAIM: "org",
};

test("CONTEXT_HUB_AUTH takes none, api-key, oidc or both, in either order", () => {
  assert.deepEqual(loadGatewayConfig({}).auth.methods, []);
  assert.deepEqual(loadGatewayConfig({ CONTEXT_HUB_AUTH: "api-key" }).auth.methods, ["api-key"]);
  assert.deepEqual(loadGatewayConfig({ ...oidcEnv, CONTEXT_HUB_AUTH: "oidc, api-key" }).auth.methods, [
    "api-key",
    "oidc",
  ]);
  assert.throws(
    () => loadGatewayConfig({ CONTEXT_HUB_AUTH: "api-key,ldap" }),
    /CONTEXT_HUB_AUTH: expected none, api-key, oidc or api-key,oidc/,
  );
});

test("oidc needs an issuer and the public resource URL, which is the default audience", () => {
  const config = loadGatewayConfig(oidcEnv);
  assert.deepEqual(config.auth.oidc?.audiences, ["https://context.example.com/mcp"]);
  assert.deepEqual(config.auth.oidc?.tenant, { claim: "org" });
  assert.equal(config.auth.oidc?.jwksUrl, undefined, "discovered from the issuer");
  assert.deepEqual(loadGatewayConfig({ ...oidcEnv, OIDC_AUDIENCE: "context-hub, account" }).auth.oidc?.audiences, [
    "context-hub",
    "account",
  ]);
  assert.throws(
    () => loadGatewayConfig({ CONTEXT_HUB_AUTH: "oidc" }),
    (error: Error) =>
      /OIDC_ISSUER: required/.test(error.message) && /CONTEXT_HUB_PUBLIC_URL: required/.test(error.message),
  );
});

test("OIDC settings are checked: https outside loopback, asymmetric algorithms only, one source of tenant", () => {
  assert.throws(
    () => loadGatewayConfig({ ...oidcEnv, OIDC_ISSUER: "http://login.example.com" }),
    /OIDC_ISSUER: expected an https:\/\/ URL/,
  );
  assert.equal(
    loadGatewayConfig({ ...oidcEnv, OIDC_ISSUER: "http://127.0.0.1:9000/realms/x" }).auth.oidc?.issuer,
    "http://127.0.0.1:9000/realms/x",
  );
  assert.throws(
    () => loadGatewayConfig({ ...oidcEnv, OIDC_ALGORITHMS: "RS256,HS256,none" }),
    /OIDC_ALGORITHMS: .*not allowed: HS256, none/,
  );
  assert.throws(
    () => loadGatewayConfig({ ...oidcEnv, OIDC_TENANT: "acme", OIDC_TENANT_CLAIM: "org" }),
    /OIDC_TENANT: set either/,
  );
  assert.deepEqual(loadGatewayConfig({ ...oidcEnv, OIDC_TENANT_CLAIM: "", OIDC_TENANT: "acme" }).auth.oidc?.tenant, {
    fixed: "acme",
  });
});

test("with oidc on, the tenant's source must be named: no silent default claim", () => {
  assert.throws(
    () => loadGatewayConfig({ ...oidcEnv, OIDC_TENANT_CLAIM: "" }),
    (error: Error) =>
      /OIDC_TENANT_CLAIM: required when CONTEXT_HUB_AUTH includes oidc/.test(error.message) &&
      /OIDC_TENANT to one fixed tenant/.test(error.message),
  );
  // Without oidc neither is needed.
  assert.equal(loadGatewayConfig({ CONTEXT_HUB_AUTH: "api-key" }).auth.oidc, undefined);
});

test("http is accepted only for loopback literals, not for DNS names that start with 127.", () => {
  assert.equal(
    loadGatewayConfig({ ...oidcEnv, OIDC_ISSUER: "http://[::1]:9000/x" }).auth.oidc?.issuer,
    "http://[::1]:9000/x",
  );
  assert.equal(
    loadGatewayConfig({ ...oidcEnv, OIDC_ISSUER: "http://localhost:9000/x" }).auth.oidc?.issuer,
    "http://localhost:9000/x",
  );
  assert.throws(
    () => loadGatewayConfig({ ...oidcEnv, OIDC_ISSUER: "http://127.evil.example/realms/x" }),
    /OIDC_ISSUER: expected an https:\/\/ URL \(plain http only on loopback\)/,
  );
  assert.throws(
    () => loadGatewayConfig({ ...oidcEnv, OIDC_JWKS_URL: "http://127.0.0.1.nip.io/certs" }),
    /OIDC_JWKS_URL: expected an https:\/\/ URL/,
  );
});

test("rate limits are off with auth off unless set, and on with auth on", () => {
  assert.equal(loadGatewayConfig({}).rateLimits.write.perMinute, 0);
  assert.equal(loadGatewayConfig({ CONTEXT_HUB_RATE_WRITE_PER_MIN: "30" }).rateLimits.write.perMinute, 30);
  const on = loadGatewayConfig({ CONTEXT_HUB_AUTH: "api-key" }).rateLimits;
  assert.ok(on.read.perMinute > 0 && on.write.perMinute > 0 && on.read.perMinute > on.write.perMinute);
  assert.throws(() => loadGatewayConfig({ CONTEXT_HUB_RATE_READ_BURST: "0" }), /CONTEXT_HUB_RATE_READ_BURST/);
});

test("disabled tools and instructions", () => {
  const config = loadGatewayConfig({
    CONTEXT_HUB_DISABLED_TOOLS: " delete_context, delete_context_batch ",
    CONTEXT_HUB_INSTRUCTIONS: "Use thread ids of the form PROJ-123.",
  });
  assert.deepEqual(config.disabledTools, ["delete_context", "delete_context_batch"]);
  assert.equal(config.instructions, "Use thread ids of the form PROJ-123.");
  assert.equal(loadGatewayConfig({}).instructions, undefined);
});

test("toolsets: all by default, a list in canonical order, an unknown name stops the start naming the toolsets", () => {
  assert.equal(loadGatewayConfig({}).toolsets.length, 8);
  assert.deepEqual(loadGatewayConfig({ CONTEXT_HUB_TOOLSETS: "" }).toolsets, loadGatewayConfig({}).toolsets);
  assert.deepEqual(loadGatewayConfig({ CONTEXT_HUB_TOOLSETS: "workflow, core" }).toolsets, ["core", "workflow"]);
  assert.throws(
    () => loadGatewayConfig({ CONTEXT_HUB_TOOLSETS: "core,memory" }),
    /CONTEXT_HUB_TOOLSETS: unknown toolset memory \(toolsets: all, core, search, library, history, workflow, review, admin, connector\)/,
  );
});

test("write deadlines: node summaries get only part of the summary's deadline; early generation is auto, on or off", () => {
  const config = loadGatewayConfig({});
  assert.ok(config.timeouts.sectionSummaryMs < config.timeouts.summaryMs);
  assert.equal(config.earlyGeneration, "auto");
  assert.equal(loadGatewayConfig({ GATEWAY_EARLY_GENERATION: "off" }).earlyGeneration, "off");
  assert.throws(() => loadGatewayConfig({ GATEWAY_EARLY_GENERATION: "sometimes" }), /GATEWAY_EARLY_GENERATION/);
  assert.throws(
    () => loadGatewayConfig({ GATEWAY_SUMMARY_TIMEOUT_MS: "4000", GATEWAY_SECTION_SUMMARY_TIMEOUT_MS: "4000" }),
    /GATEWAY_SECTION_SUMMARY_TIMEOUT_MS: must be less than GATEWAY_SUMMARY_TIMEOUT_MS \(4000\)/,
  );
  assert.equal(
    loadGatewayConfig({ GATEWAY_SUMMARY_TIMEOUT_MS: "4000", GATEWAY_SECTION_SUMMARY_TIMEOUT_MS: "3000" }).timeouts
      .sectionSummaryMs,
    3000,
  );
  // Without summaries the summary deadline only bounds rerank calls, and there are no node summaries to fit in it.
  assert.equal(
    loadGatewayConfig({ CONTEXT_HUB_SUMMARIES: "false", GATEWAY_SUMMARY_TIMEOUT_MS: "4000" }).timeouts.summaryMs,
    4000,
  );
});

test("the local principal cannot take the operator's name", () => {
  assert.throws(
    () => loadGatewayConfig({ CONTEXT_HUB_LOCAL_SUBJECT: "operator" }),
    /CONTEXT_HUB_LOCAL_SUBJECT: the subject "operator" is reserved/,
  );
});

test("body limits: the write limit defaults to the largest legal write and cannot exceed it; readers get less", () => {
  const config = loadGatewayConfig({});
  assert.equal(config.maxBodyBytes, writeBodyLimitBytes);
  assert.equal(config.maxReadBodyBytes, 1024 * 1024);
  // The largest legal write: ten 10 MiB images as base64 would not fit one commit, so the commit bounds it.
  assert.equal(writeBodyLimitBytes, Math.min(largestEntryBytes(), largestCommitBytes()));
  assert.ok(largestCommitBytes() < largestEntryBytes());
  assert.throws(
    () => loadGatewayConfig({ CONTEXT_HUB_MAX_BODY_BYTES: String(writeBodyLimitBytes + 1) }),
    /CONTEXT_HUB_MAX_BODY_BYTES: expected an integer from 1024 to 95888086/,
  );
  assert.equal(
    loadGatewayConfig({ CONTEXT_HUB_MAX_BODY_BYTES: "2048" }).maxReadBodyBytes,
    2048,
    "an unset read limit follows a lower write limit",
  );
  assert.throws(
    () => loadGatewayConfig({ CONTEXT_HUB_MAX_BODY_BYTES: "2048", CONTEXT_HUB_MAX_READ_BODY_BYTES: "4096" }),
    /CONTEXT_HUB_MAX_READ_BODY_BYTES: must be at most CONTEXT_HUB_MAX_BODY_BYTES \(2048\), got 4096/,
  );
});

test("failed-authentication throttle, trusted proxies and the keys file poll are configurable and checked", () => {
  const config = loadGatewayConfig({});
  assert.deepEqual(config.rateLimits.authFailures, { perMinute: 30, burst: 60 });
  assert.deepEqual(config.trustedProxies, []);
  assert.equal(config.auth.keysFilePollMs, 10_000);
  assert.deepEqual(
    loadGatewayConfig({ CONTEXT_HUB_TRUSTED_PROXIES: "loopback, 10.0.0.0/8, fd00::/8, 192.0.2.1" }).trustedProxies,
    ["loopback", "10.0.0.0/8", "fd00::/8", "192.0.2.1"],
  );
  assert.throws(
    () => loadGatewayConfig({ CONTEXT_HUB_TRUSTED_PROXIES: "10.0.0.0/33, ingress.local" }),
    /CONTEXT_HUB_TRUSTED_PROXIES: .*not understood: 10\.0\.0\.0\/33, ingress\.local/,
  );
  assert.throws(
    () => loadGatewayConfig({ CONTEXT_HUB_RATE_AUTH_FAILURES_BURST: "0" }),
    /CONTEXT_HUB_RATE_AUTH_FAILURES_BURST/,
  );
  assert.throws(
    () => loadGatewayConfig({ CONTEXT_HUB_API_KEYS_FILE_POLL_MS: "10" }),
    /CONTEXT_HUB_API_KEYS_FILE_POLL_MS/,
  );
});

test("the console's OIDC client: off by default, scopes defaulted and tidied, refused without oidc", () => {
  assert.equal(loadGatewayConfig(oidcEnv).auth.oidc?.console, undefined);
  assert.deepEqual(loadGatewayConfig({ ...oidcEnv, CONSOLE_OIDC_CLIENT_ID: "hub-console" }).auth.oidc?.console, {
    clientId: "hub-console",
    scopes: "openid profile",
  });
  assert.deepEqual(
    loadGatewayConfig({ ...oidcEnv, CONSOLE_OIDC_CLIENT_ID: "c", CONSOLE_OIDC_SCOPES: " openid\t email  groups " }).auth
      .oidc?.console,
    { clientId: "c", scopes: "openid email groups" },
  );
  for (const env of [
    { CONSOLE_OIDC_CLIENT_ID: "hub-console" },
    { CONTEXT_HUB_AUTH: "api-key", CONSOLE_OIDC_CLIENT_ID: "hub-console" },
    { CONSOLE_OIDC_SCOPES: "openid" },
  ])
    assert.throws(
      () => loadGatewayConfig(env),
      /CONSOLE_OIDC_(CLIENT_ID|SCOPES): only meaningful when CONTEXT_HUB_AUTH includes oidc/,
      JSON.stringify(env),
    );
  assert.equal(loadGatewayConfig({ CONSOLE_OIDC_CLIENT_ID: "", CONSOLE_OIDC_SCOPES: " " }).auth.oidc, undefined);
  assert.throws(
    () => loadGatewayConfig({ ...oidcEnv, CONSOLE_OIDC_SCOPES: "openid" }),
    /CONSOLE_OIDC_SCOPES: set only with CONSOLE_OIDC_CLIENT_ID/,
  );
  assert.throws(
    () => loadGatewayConfig({ ...oidcEnv, CONSOLE_OIDC_CLIENT_ID: "c", CONSOLE_OIDC_SCOPES: 'openid "x"' }),
    /CONSOLE_OIDC_SCOPES: expected space-separated OAuth scopes/,
  );
  assert.throws(
    () => loadGatewayConfig({ ...oidcEnv, CONSOLE_OIDC_CLIENT_ID: "bad\nid" }),
    /CONSOLE_OIDC_CLIENT_ID: expected printable ASCII/,
  );
});
