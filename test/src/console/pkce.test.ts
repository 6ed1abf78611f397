import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";

/**
 * The console's PKCE helpers (packages/console/src/app/pkce.ts), which use
 * only Web Crypto and URL APIs, run here under Node as they run in the
 * browser: the S256 challenge against RFC 7636's own example, the random
 * values' shape, the authorization URL, the token request and reading the
 * issuer's return.
 */

interface Pkce {
  codeVerifierShape: RegExp;
  base64url(bytes: Uint8Array): string;
  randomToken(bytes?: number): string;
  createCodeVerifier(): string;
  codeChallenge(verifier: string): Promise<string>;
  authorizationUrl(request: Record<string, string>): string;
  tokenRequestBody(request: Record<string, string>): URLSearchParams;
  readCallback(search: string): Record<string, string>;
  idTokenNonce(idToken: string): string | undefined;
}

const pkce = (await import(new URL("../../../packages/console/dist/app/pkce.js", import.meta.url).href)) as Pkce;

test("the S256 challenge is RFC 7636 appendix B's, and agrees with Node's SHA-256 for fresh verifiers", async () => {
  assert.equal(
    await pkce.codeChallenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
    "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
  );
  for (let round = 0; round < 20; round++) {
    const verifier = pkce.createCodeVerifier();
    assert.equal(await pkce.codeChallenge(verifier), createHash("sha256").update(verifier).digest("base64url"));
  }
  await assert.rejects(pkce.codeChallenge("too-short"), /43 to 128/);
  await assert.rejects(pkce.codeChallenge("a".repeat(129)), /43 to 128/);
  await assert.rejects(pkce.codeChallenge(`${"a".repeat(42)}+`), /43 to 128/);
});

test("verifiers, states and nonces are random base64url of the length asked", () => {
  const verifiers = new Set(Array.from({ length: 50 }, () => pkce.createCodeVerifier()));
  assert.equal(verifiers.size, 50);
  for (const verifier of verifiers) {
    assert.match(verifier, pkce.codeVerifierShape);
    assert.equal(verifier.length, 86);
  }
  assert.match(pkce.randomToken(), /^[A-Za-z0-9_-]{43}$/);
  assert.equal(pkce.base64url(new Uint8Array([0xfb, 0xff, 0xfe])), "-__-");
  assert.equal(pkce.base64url(new Uint8Array([1])), "AQ");
});

test("the authorization URL carries every parameter, encoded, beside the endpoint's own", () => {
  const url = new URL(
    pkce.authorizationUrl({
      authorizationEndpoint: "https://login.example.com/authorize?audience=hub",
      clientId: "console app",
      redirectUri: "https://hub.example.com/console/",
      scope: "openid profile",
      state: "st",
      nonce: "no",
      codeChallenge: "ch",
    }),
  );
  assert.equal(url.origin + url.pathname, "https://login.example.com/authorize");
  assert.deepEqual(Object.fromEntries(url.searchParams), {
    audience: "hub",
    response_type: "code",
    client_id: "console app",
    redirect_uri: "https://hub.example.com/console/",
    scope: "openid profile",
    state: "st",
    nonce: "no",
    code_challenge: "ch",
    code_challenge_method: "S256",
  });
});

test("the token request is the authorization_code grant with the verifier", () => {
  const body = pkce.tokenRequestBody({
    code: "c&d",
    redirectUri: "https://h/console/",
    clientId: "id",
    codeVerifier: "v",
  });
  assert.equal(
    body.toString(),
    "grant_type=authorization_code&code=c%26d&redirect_uri=https%3A%2F%2Fh%2Fconsole%2F&client_id=id&code_verifier=v",
  );
});

test("the issuer's return is read as a code with its state, an error, or nothing", () => {
  assert.deepEqual(pkce.readCallback(""), { kind: "none" });
  assert.deepEqual(pkce.readCallback("?q=falcon"), { kind: "none" });
  assert.deepEqual(pkce.readCallback("?code=abc&state=xyz"), { kind: "code", code: "abc", state: "xyz" });
  assert.deepEqual(pkce.readCallback("?code=abc"), { kind: "code", code: "abc", state: "" });
  assert.deepEqual(pkce.readCallback("?error=access_denied&error_description=no&state=s"), {
    kind: "error",
    error: "access_denied",
    description: "no",
  });
  assert.equal(pkce.readCallback("?state=only").kind, "error");
});

test("an ID token's nonce is read from its payload; anything malformed has none", () => {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
  assert.equal(pkce.idTokenNonce(`${part({ alg: "RS256" })}.${part({ nonce: "n-1", sub: "ü" })}.sig`), "n-1");
  assert.equal(pkce.idTokenNonce(`${part({})}.${part({ nonce: 7 })}.sig`), undefined);
  assert.equal(pkce.idTokenNonce("not-a-token"), undefined);
  assert.equal(pkce.idTokenNonce("a.%%%.c"), undefined);
});
