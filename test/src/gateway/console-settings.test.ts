import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { AllInOne } from "@context-hub/cli";
import { writeKeysFile } from "../support/principals.js";
import { startMemoryHub } from "../support/memory-hub.js";
import { startGatewayOn, type TestGateway } from "./gateways.js";

/**
 * What /console/config.json and the console's Content-Security-Policy say,
 * per gateway configuration: with API keys, and with oidc without a console
 * client, OIDC sign-in is off and the policy connects to the gateway alone;
 * with CONSOLE_OIDC_CLIENT_ID it is on, names the issuer, client and scopes
 * (nothing secret), and the policy also connects to the issuer's origin.
 */

const oidcEnv = {
  CONTEXT_HUB_AUTH: "oidc",
  OIDC_ISSUER: "https://login.example.test:8443/realms/acme",
  OIDC_TENANT_CLAIM: "tenant",
  CONTEXT_HUB_PUBLIC_URL: "https://context.example.test/mcp",
};

describe("the console's settings and policy follow the gateway's configuration", () => {
  let hub: AllInOne;
  const keys = writeKeysFile([
    { name: "alice", tenant: "acme", subject: "alice", groups: [], scopes: ["context:read"] },
  ]);
  const gateways: Record<string, TestGateway> = {};

  before(async () => {
    hub = await startMemoryHub({ CONTEXT_HUB_AUTH: "none" });
    gateways.apiKey = await startGatewayOn(hub, { CONTEXT_HUB_AUTH: "api-key", CONTEXT_HUB_API_KEYS_FILE: keys.path });
    gateways.oidcOnly = await startGatewayOn(hub, oidcEnv);
    gateways.signIn = await startGatewayOn(hub, { ...oidcEnv, CONSOLE_OIDC_CLIENT_ID: "hub-console" });
    gateways.scoped = await startGatewayOn(hub, {
      ...oidcEnv,
      CONTEXT_HUB_AUTH: "api-key,oidc",
      CONTEXT_HUB_API_KEYS_FILE: keys.path,
      CONSOLE_OIDC_CLIENT_ID: "hub-console",
      CONSOLE_OIDC_SCOPES: "openid  context:read\tcontext:write",
    });
  });

  after(async () => {
    await Promise.all(Object.values(gateways).map((gateway) => gateway.close()));
    await hub?.close();
    keys.dispose();
  });

  async function settingsOf(gateway: TestGateway): Promise<{ body: unknown; policy: string }> {
    const response = await fetch(`${gateway.base}/console/config.json`);
    assert.equal(response.status, 200, "served without a credential");
    assert.match(response.headers.get("content-type") ?? "", /^application\/json/);
    return { body: await response.json(), policy: response.headers.get("content-security-policy") ?? "" };
  }

  /** The policy's directives by name. */
  const directives = (policy: string) =>
    new Map(policy.split("; ").map((directive) => [directive.split(" ")[0]!, directive] as const));

  test("off: with API keys, and with oidc but no console client", async () => {
    for (const gateway of [gateways.apiKey!, gateways.oidcOnly!]) {
      const { body, policy } = await settingsOf(gateway);
      assert.deepEqual(body, { oidc: null });
      assert.equal(directives(policy).get("connect-src"), "connect-src 'self'");
      // Every console answer carries the same policy.
      const page = await fetch(`${gateway.base}/console/`);
      assert.equal(page.headers.get("content-security-policy"), policy);
    }
  });

  test("on: the issuer, the public client and the scopes; the policy connects to the issuer's origin and no further", async () => {
    const { body, policy } = await settingsOf(gateways.signIn!);
    assert.deepEqual(body, {
      oidc: { issuer: oidcEnv.OIDC_ISSUER, client_id: "hub-console", scopes: "openid profile" },
    });
    const policyOf = directives(policy);
    assert.equal(policyOf.get("connect-src"), "connect-src 'self' https://login.example.test:8443");
    for (const strict of [
      "default-src 'self'",
      "script-src 'self'",
      "style-src 'self'",
      "img-src 'self' data:",
      "object-src 'none'",
      "frame-ancestors 'none'",
      "base-uri 'none'",
      "form-action 'none'",
    ])
      assert.equal(policyOf.get(strict.split(" ")[0]!), strict);
    assert.equal(policyOf.size, 9, policy);
    assert.doesNotMatch(policy, /unsafe-|\*/);
    for (const path of ["/console/", "/console/app/main.js", "/console/nothing-here"])
      assert.equal((await fetch(`${gateways.signIn!.base}${path}`)).headers.get("content-security-policy"), policy);

    const scoped = await settingsOf(gateways.scoped!);
    assert.deepEqual(scoped.body, {
      oidc: { issuer: oidcEnv.OIDC_ISSUER, client_id: "hub-console", scopes: "openid context:read context:write" },
    });
  });
});
