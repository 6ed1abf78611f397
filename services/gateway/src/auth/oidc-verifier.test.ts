import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { discoverJwksUrl } from "./oidc-verifier.js";

/** Serves `documents` by path on 127.0.0.1 (404 elsewhere); dispose with close(). */
async function serve(documents: (origin: string) => Record<string, unknown>) {
  let origin = "";
  const server = createServer((request, response) => {
    const body = documents(origin)[request.url ?? ""];
    if (body === undefined) response.writeHead(404).end();
    else response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { origin, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

test("discovery reads jwks_uri from the OpenID configuration, else from RFC 8414 metadata", async (t) => {
  const idp = await serve((origin) => ({
    "/oidc/.well-known/openid-configuration": { issuer: `${origin}/oidc`, jwks_uri: `${origin}/oidc/keys` },
    "/.well-known/oauth-authorization-server/oauth": { issuer: `${origin}/oauth`, jwks_uri: `${origin}/oauth/keys` },
  }));
  t.after(idp.close);
  assert.equal(await discoverJwksUrl(`${idp.origin}/oidc`, 2_000), `${idp.origin}/oidc/keys`);
  assert.equal(await discoverJwksUrl(`${idp.origin}/oauth`, 2_000), `${idp.origin}/oauth/keys`);
  await assert.rejects(discoverJwksUrl(`${idp.origin}/nothing`, 2_000), /no discovery document .*; set OIDC_JWKS_URL/);
});

test("a discovery document for another issuer, or with a plain-http JWKS off loopback, is refused", async (t) => {
  const idp = await serve((origin) => ({
    "/a/.well-known/openid-configuration": { issuer: "https://evil.example.com/a", jwks_uri: `${origin}/a/keys` },
    "/b/.well-known/openid-configuration": { issuer: `${origin}/b`, jwks_uri: "http://keys.example.com/b" },
    "/c/.well-known/openid-configuration": { issuer: `${origin}/c` },
  }));
  t.after(idp.close);
  await assert.rejects(
    discoverJwksUrl(`${idp.origin}/a`, 2_000),
    /names issuer "https:\/\/evil\.example\.com\/a", not/,
  );
  await assert.rejects(discoverJwksUrl(`${idp.origin}/b`, 2_000), /jwks_uri that is not https/);
  await assert.rejects(discoverJwksUrl(`${idp.origin}/c`, 2_000), /has no jwks_uri; set OIDC_JWKS_URL/);
});
