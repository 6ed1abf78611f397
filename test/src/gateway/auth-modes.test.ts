import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { SignJWT } from "jose";
import { findFreePort, type AllInOne } from "@context-hub/cli";
import { callOk, connectMcpClient } from "../support/mcp.js";
import { readWrite, writeKeysFile } from "../support/principals.js";
import { postJsonRpc, startGatewayOn, toolRuns, type TestGateway } from "./gateways.js";
import { startLocalIssuer, type LocalIssuer } from "./local-issuer.js";
import { startMemoryHub } from "../support/memory-hub.js";

/**
 * Every CONTEXT_HUB_AUTH mode over real HTTP with the MCP SDK client: one
 * store, one gateway per mode, a local OpenID provider with real RS256 and
 * ES256 keys. Each refusal is checked for its status, its Bearer challenge
 * and its reason, beside a credential that works.
 */

interface Whoami {
  tenant: string;
  subject: string;
  groups: string[];
  scopes: string[];
}

const publicUrl = "https://context.example.test/mcp";
const metadataUrl = "https://context.example.test/.well-known/oauth-protected-resource/mcp";
const toolsList = { method: "tools/list" };
const storeCall = (thread: string) => ({
  method: "tools/call",
  params: { name: "store_context", arguments: { thread_id: thread, source: "user", text: "must not be stored" } },
});
const bearer = (token: string) => `Bearer ${token}`;
/** The SDK client's error for an HTTP status. */
const httpStatus = (status: number) => (error: Error & { code?: unknown }) => error.code === status;
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

/** A challenge parameter's value, e.g. param(challenge, "error"). */
function param(challenge: string | null, name: string): string | undefined {
  return new RegExp(`${name}="([^"]*)"`).exec(challenge ?? "")?.[1];
}

describe("authentication modes end to end", () => {
  let hub: AllInOne;
  let issuer: LocalIssuer;
  let keys: ReturnType<typeof writeKeysFile>;
  let apiKey: TestGateway;
  let oidc: TestGateway;
  let both: TestGateway;
  let rsa: string;
  let ec: string;

  before(async () => {
    issuer = await startLocalIssuer({ audience: publicUrl });
    rsa = await issuer.createKey("RS256");
    ec = await issuer.createKey("ES256");
    issuer.publish(rsa);
    issuer.publish(ec);
    keys = writeKeysFile([
      { name: "alice", tenant: "acme", subject: "alice", groups: ["eng"], scopes: readWrite },
      { name: "reader", tenant: "acme", subject: "auditor", groups: [], scopes: ["context:read"] },
    ]);
    hub = await startMemoryHub({ CONTEXT_HUB_AUTH: "none" });
    apiKey = await startGatewayOn(hub, { CONTEXT_HUB_AUTH: "api-key", CONTEXT_HUB_API_KEYS_FILE: keys.path });
    // oidc: the JWKS URL comes from discovery; no cooldown, so an unknown kid is refetched at once.
    oidc = await startGatewayOn(hub, {
      CONTEXT_HUB_AUTH: "oidc",
      OIDC_ISSUER: issuer.issuer,
      OIDC_TENANT_CLAIM: "tenant",
      CONTEXT_HUB_PUBLIC_URL: publicUrl,
      OIDC_JWKS_COOLDOWN_MS: "0",
    });
    // api-key,oidc: Keycloak-style audience and tenant claim, an explicit JWKS URL and the default cooldown.
    both = await startGatewayOn(hub, {
      CONTEXT_HUB_AUTH: "api-key,oidc",
      CONTEXT_HUB_API_KEYS_FILE: keys.path,
      OIDC_ISSUER: issuer.issuer,
      OIDC_JWKS_URL: `${issuer.jwksUrl}?client=both`,
      OIDC_AUDIENCE: "context-hub",
      OIDC_TENANT_CLAIM: "org",
      CONTEXT_HUB_PUBLIC_URL: publicUrl,
    });
  });
  after(async () => {
    await Promise.all([apiKey?.close(), oidc?.close(), both?.close()]);
    await hub?.close();
    await issuer?.close();
    keys?.dispose();
  });

  const whoami = async (url: string, authorization?: string) => {
    const client = await connectMcpClient(url, authorization === undefined ? {} : { authorization });
    try {
      return await callOk<Whoami>(client, "whoami", {});
    } finally {
      await client.close();
    }
  };

  describe("none", () => {
    test("the SDK client needs no credential and is the one local principal", async () => {
      const me = await whoami(hub.url);
      assert.deepEqual([me.tenant, me.subject], ["local", "local"]);
      assert.deepEqual(me.scopes, ["context:read", "context:write", "context:review", "context:admin"]);
    });
  });

  describe("api-key", () => {
    test("a key is its principal", async () => {
      const me = await whoami(apiKey.url, bearer(keys.principals.alice!.key));
      assert.deepEqual(
        [me.tenant, me.subject, me.groups, me.scopes],
        ["acme", "alice", ["eng"], ["context:read", "context:write"]],
      );
      const viaHeader = await connectMcpClient(apiKey.url, { "x-api-key": keys.principals.alice!.key });
      assert.equal((await callOk<Whoami>(viaHeader, "whoami", {})).subject, "alice");
      await viaHeader.close();
      // The API-Key scheme is a synonym of Bearer for an API key.
      const viaScheme = await connectMcpClient(apiKey.url, { authorization: `API-Key ${keys.principals.alice!.key}` });
      assert.equal((await callOk<Whoami>(viaScheme, "whoami", {})).subject, "alice");
      await viaScheme.close();
    });

    test("missing, malformed, unknown and other-scheme credentials and JWTs are refused with a Bearer challenge and a reason", async () => {
      const jwt = await issuer.sign(rsa);
      // [Authorization header, the challenge's error code (none when no credential was sent, RFC 6750 §3.1), the reason]
      const cases: [string | undefined, string | undefined, RegExp][] = [
        [undefined, undefined, /Authentication required: send Authorization: Bearer <an API key \(chk_…\)>/],
        ["Basic YWxpY2U6cHc=", "invalid_request", /Unsupported Authorization scheme/],
        [bearer("not-a-key"), "invalid_token", /Malformed credential: expected an API key/],
        [bearer(`chk_${"x".repeat(43)}`), "invalid_token", /The API key is not valid/],
        [bearer("chk_short"), "invalid_token", /an API key is chk_ followed by 43/],
        [bearer(jwt), "invalid_token", /Malformed credential: expected an API key/],
      ];
      for (const [authorization, error, reason] of cases) {
        const answer = await postJsonRpc(apiKey.url, toolsList, authorization);
        assert.equal(answer.status, 401, String(authorization));
        assert.match(answer.challenge ?? "", /^Bearer realm="context-hub"/);
        assert.equal(param(answer.challenge, "error"), error, String(authorization));
        assert.match(answer.body?.error?.message ?? "", reason, String(authorization));
        assert.equal(param(answer.challenge, "resource_metadata"), undefined, "no OAuth metadata without oidc");
      }
      await assert.rejects(connectMcpClient(apiKey.url), httpStatus(401));
    });
  });

  describe("oidc", () => {
    test("valid RS256 and ES256 access tokens authenticate; the claims are the principal", async () => {
      for (const kid of [rsa, ec]) {
        const me = await whoami(
          oidc.url,
          bearer(await issuer.sign(kid, { scp: ["context:read"], scope: undefined, groups: ["eng", "ops"] })),
        );
        assert.deepEqual(
          [me.tenant, me.subject, me.groups, me.scopes],
          ["acme", "dora", ["eng", "ops"], ["context:read"]],
          kid,
        );
      }
    });

    test("the REST API takes the same access tokens, and refuses a bad one with a problem and the same challenge", async () => {
      const token = bearer(await issuer.sign(rsa, { scp: ["context:read"], scope: undefined }));
      const answer = await fetch(`${oidc.base}/api/v1/whoami`, { headers: { authorization: token } });
      assert.equal(answer.status, 200);
      const me = (await answer.json()) as Whoami;
      assert.deepEqual([me.tenant, me.subject, me.scopes], ["acme", "dora", ["context:read"]]);
      const write = await fetch(`${oidc.base}/api/v1/entries`, {
        method: "POST",
        headers: { authorization: token, "content-type": "application/json" },
        body: JSON.stringify({ thread_id: "t", source: "user", text: "must not be stored" }),
      });
      assert.equal(write.status, 403, "a read-only token cannot write over REST either");
      assert.match(write.headers.get("www-authenticate") ?? "", /insufficient_scope/);
      const now = Math.floor(Date.now() / 1000);
      const expired = await issuer.sign(rsa, { exp: now - 120, iat: now - 600, nbf: now - 600 });
      const refused = await fetch(`${oidc.base}/api/v1/whoami`, { headers: { authorization: bearer(expired) } });
      assert.equal(refused.status, 401);
      assert.equal(refused.headers.get("content-type")?.split(";")[0], "application/problem+json");
      const challenge = refused.headers.get("www-authenticate");
      assert.equal(param(challenge, "error"), "invalid_token");
      assert.equal(param(challenge, "resource_metadata"), metadataUrl);
      const problem = (await refused.json()) as { code: string; detail: string };
      assert.equal(problem.code, "UNAUTHENTICATED");
      assert.match(problem.detail, /has expired/);
    });

    test("the JWKS URL is discovered from the issuer, and the keys are cached across requests", async () => {
      const token = bearer(await issuer.sign(rsa));
      assert.equal((await postJsonRpc(oidc.url, toolsList, token)).status, 200);
      assert.ok(issuer.fetches("/realms/test/.well-known/openid-configuration") >= 1, "discovery was used");
      const fetched = issuer.fetches("/realms/test/jwks");
      for (let call = 0; call < 5; call++) assert.equal((await postJsonRpc(oidc.url, toolsList, token)).status, 200);
      assert.equal(issuer.fetches("/realms/test/jwks"), fetched, "no JWKS fetch per request");
    });

    test("every bad token is refused with 401 invalid_token, its reason and the resource metadata URL", async () => {
      const now = Math.floor(Date.now() / 1000);
      const valid = await issuer.sign(rsa);
      const [header, payload, signature] = valid.split(".");
      const unpublished = await issuer.createKey("RS256");
      const cases: [string, string, RegExp][] = [
        ["expired", await issuer.sign(rsa, { exp: now - 120, iat: now - 600, nbf: now - 600 }), /has expired/],
        ["not yet valid", await issuer.sign(rsa, { nbf: now + 120 }), /not valid yet/],
        [
          "wrong audience",
          await issuer.sign(rsa, { aud: "https://other.example.test/mcp" }),
          /for another audience; this server accepts https:\/\/context\.example\.test\/mcp/,
        ],
        [
          "wrong issuer",
          await issuer.sign(rsa, { iss: "https://evil.example.test/realms/test" }),
          /issued by another issuer/,
        ],
        ["unsigned (alg none)", `${b64({ alg: "none", typ: "JWT" })}.${payload}.`, /algorithm none is not allowed/],
        [
          "HS256 keyed with the public key (algorithm confusion)",
          await new SignJWT(JSON.parse(Buffer.from(payload!, "base64url").toString()) as Record<string, unknown>)
            .setProtectedHeader({ alg: "HS256", kid: rsa })
            .sign(new TextEncoder().encode(JSON.stringify(issuer.publicJwk(rsa)))),
          /algorithm HS256 is not allowed/,
        ],
        [
          "tampered payload",
          `${header}.${b64({ ...JSON.parse(Buffer.from(payload!, "base64url").toString()), scope: "context:admin" })}.${signature}`,
          /signature does not verify/,
        ],
        [
          "unknown kid",
          await issuer.sign(unpublished),
          new RegExp(`a key the issuer does not publish \\(kid ${unpublished}\\)`),
        ],
        ["no expiry", await issuer.sign(rsa, { exp: undefined }), /"exp" claim/],
        ["an ID token", await issuer.sign(rsa, { typ: "ID" }), /not an access token/],
        ["no tenant claim", await issuer.sign(rsa, { tenant: undefined }), /no usable "tenant" claim/],
        [
          "an API key where only OIDC is accepted",
          keys.principals.alice!.key,
          /Malformed credential: expected an OIDC access token \(JWT\)/,
        ],
      ];
      for (const [name, token, reason] of cases) {
        const answer = await postJsonRpc(oidc.url, toolsList, bearer(token));
        assert.equal(answer.status, 401, name);
        assert.equal(param(answer.challenge, "error"), "invalid_token", name);
        assert.match(answer.body?.error?.message ?? "", reason, name);
        assert.ok(
          (param(answer.challenge, "error_description") ?? "").length > 0,
          `${name}: the challenge carries the reason too`,
        );
        assert.equal(param(answer.challenge, "resource_metadata"), metadataUrl, name);
      }
      const missing = await postJsonRpc(oidc.url, toolsList);
      assert.equal(missing.status, 401);
      assert.equal(param(missing.challenge, "error"), undefined);
      assert.equal(
        param(missing.challenge, "resource_metadata"),
        metadataUrl,
        "an OAuth client finds the issuer from the first 401",
      );
      await assert.rejects(
        connectMcpClient(oidc.url, { authorization: bearer(await issuer.sign(rsa, { aud: "elsewhere" })) }),
        httpStatus(401),
      );
    });

    test("a token signed with a new key is refused until the issuer publishes the key, then accepted after a refetch", async () => {
      const next = await issuer.createKey("ES256");
      const token = bearer(await issuer.sign(next));
      const before = issuer.fetches("/realms/test/jwks");
      assert.equal((await postJsonRpc(oidc.url, toolsList, token)).status, 401);
      assert.equal(issuer.fetches("/realms/test/jwks"), before + 1, "an unknown kid makes the gateway look again");
      issuer.publish(next);
      assert.equal((await postJsonRpc(oidc.url, toolsList, token)).status, 200, "the rotated key is accepted");
      assert.equal(issuer.fetches("/realms/test/jwks"), before + 2);
    });

    test("a token without a Context Hub scope is refused with 403 insufficient_scope", async () => {
      const answer = await postJsonRpc(
        oidc.url,
        toolsList,
        bearer(await issuer.sign(rsa, { scope: "openid profile email" })),
      );
      assert.equal(answer.status, 403);
      assert.equal(param(answer.challenge, "error"), "insufficient_scope");
      assert.equal(param(answer.challenge, "scope"), "context:read");
      assert.equal(param(answer.challenge, "resource_metadata"), metadataUrl);
    });

    test("calling a tool outside the token's scopes is a 403 naming the scope, not 'tool not found'; nothing runs", async () => {
      const readOnly = bearer(await issuer.sign(rsa, { scope: "context:read" }));
      const client = await connectMcpClient(oidc.url, { authorization: readOnly });
      const { tools } = await client.listTools();
      await client.close();
      assert.ok(tools.some((tool) => tool.name === "search_context"));
      assert.ok(!tools.some((tool) => tool.name === "store_context"), "out-of-scope tools are not listed");
      const runs = await toolRuns(oidc.base, "store_context");
      const answer = await postJsonRpc(oidc.url, storeCall("scope-probe"), readOnly);
      assert.equal(answer.status, 403);
      assert.equal(param(answer.challenge, "error"), "insufficient_scope");
      assert.equal(param(answer.challenge, "scope"), "context:write");
      assert.match(
        answer.body?.error?.message ?? "",
        /store_context needs scope context:write; this credential grants context:read/,
      );
      assert.equal(await toolRuns(oidc.base, "store_context"), runs);
      const unknown = await postJsonRpc(
        oidc.url,
        { method: "tools/call", params: { name: "no_such_tool", arguments: {} } },
        readOnly,
      );
      assert.equal(unknown.status, 200, "a tool this server does not have is still MCP's 'not found'");
    });

    test("the protected-resource metadata (RFC 9728) names the resource, the issuer and the scopes, at both well-known paths", async () => {
      for (const path of ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"]) {
        const response = await fetch(`${oidc.base}${path}`);
        assert.equal(response.status, 200, path);
        assert.equal(response.headers.get("access-control-allow-origin"), "*");
        assert.deepEqual(await response.json(), {
          resource: publicUrl,
          authorization_servers: [issuer.issuer],
          scopes_supported: ["context:read", "context:write", "context:review", "context:admin"],
          bearer_methods_supported: ["header"],
          resource_name: "Context Hub",
        });
      }
      assert.equal(
        (await fetch(`${apiKey.base}/.well-known/oauth-protected-resource`)).status,
        404,
        "not published without oidc",
      );
    });

    test("an issuer that cannot be reached is a 503, not a 401 that would make clients drop a good token", async () => {
      const port = await findFreePort();
      const unreachable = await startGatewayOn(hub, {
        CONTEXT_HUB_AUTH: "oidc",
        OIDC_ISSUER: `http://127.0.0.1:${port}/realms/test`,
        OIDC_TENANT_CLAIM: "tenant",
        CONTEXT_HUB_PUBLIC_URL: publicUrl,
        OIDC_HTTP_TIMEOUT_MS: "1000",
      });
      try {
        const answer = await postJsonRpc(unreachable.url, toolsList, bearer(await issuer.sign(rsa)));
        assert.equal(answer.status, 503);
        assert.equal(answer.challenge, null);
        assert.match(answer.body?.error?.message ?? "", /Cannot verify the access token right now/);
      } finally {
        await unreachable.close();
      }
    });
  });

  describe("api-key,oidc", () => {
    test("a chk_ bearer is an API key and a JWT is an access token, each its own principal", async () => {
      assert.equal((await whoami(both.url, bearer(keys.principals.alice!.key))).subject, "alice");
      const me = await whoami(
        both.url,
        bearer(await issuer.sign(ec, { aud: "context-hub", org: "globex", tenant: undefined })),
      );
      assert.deepEqual([me.tenant, me.subject], ["globex", "dora"]);
    });

    test("OIDC_AUDIENCE replaces the resource URL as the audience; garbage names both accepted kinds", async () => {
      const forResource = await postJsonRpc(both.url, toolsList, bearer(await issuer.sign(rsa, { org: "acme" })));
      assert.equal(forResource.status, 401);
      assert.match(forResource.body?.error?.message ?? "", /this server accepts context-hub/);
      const garbage = await postJsonRpc(both.url, toolsList, bearer("hunter2"));
      assert.match(garbage.body?.error?.message ?? "", /expected an API key \(chk_…\) or an OIDC access token \(JWT\)/);
    });

    test("with the default cooldown, a flood of unknown key ids does not hammer the issuer", async () => {
      assert.equal(
        (await postJsonRpc(both.url, toolsList, bearer(await issuer.sign(rsa, { aud: "context-hub", org: "acme" }))))
          .status,
        200,
      );
      const fetched = issuer.fetches("/realms/test/jwks?client=both");
      assert.ok(fetched >= 1);
      for (let attempt = 0; attempt < 5; attempt++) {
        const stranger = await issuer.createKey("RS256");
        assert.equal(
          (
            await postJsonRpc(
              both.url,
              toolsList,
              bearer(await issuer.sign(stranger, { aud: "context-hub", org: "acme" })),
            )
          ).status,
          401,
        );
      }
      assert.equal(
        issuer.fetches("/realms/test/jwks?client=both"),
        fetched,
        "refetching waits for OIDC_JWKS_COOLDOWN_MS",
      );
    });

    test("an API key lacking a tool's scope gets the same 403 insufficient_scope as a token", async () => {
      const answer = await postJsonRpc(both.url, storeCall("scope-probe"), bearer(keys.principals.reader!.key));
      assert.equal(answer.status, 403);
      assert.equal(param(answer.challenge, "scope"), "context:write");
    });
  });

  test("no tool runs for an unauthenticated request, in any mode with authentication", async () => {
    const thread = "unauthenticated-probe";
    const runs = await toolRuns(hub.url.replace(/\/mcp$/, ""), "store_context");
    const forged = `${b64({ alg: "none" })}.${b64({ sub: "mallory", tenant: "acme", scope: "context:write" })}.`;
    for (const gateway of [apiKey, oidc, both]) {
      for (const authorization of [undefined, bearer("chk_" + "z".repeat(43)), bearer(forged), "Basic bWFsbG9yeTo="]) {
        const answer = await postJsonRpc(gateway.url, storeCall(thread), authorization);
        assert.equal(answer.status, 401, `${gateway.url} ${authorization}`);
        assert.equal(answer.body?.result, undefined);
      }
    }
    assert.equal(await toolRuns(hub.url.replace(/\/mcp$/, ""), "store_context"), runs, "store_context never ran");
    const local = await connectMcpClient(hub.url);
    const { count } = await callOk<{ count: number }>(local, "search_context", { thread_id: thread });
    await local.close();
    const alice = await connectMcpClient(apiKey.url, { authorization: bearer(keys.principals.alice!.key) });
    const seen = await callOk<{ count: number }>(alice, "search_context", { thread_id: thread });
    await alice.close();
    assert.deepEqual([count, seen.count], [0, 0], "nothing was stored under any principal");
  });
});
