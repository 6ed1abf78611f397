import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from "jose";

/**
 * An OpenID provider for tests, on 127.0.0.1: real key pairs, a real JWKS
 * endpoint and discovery document over HTTP, and a signer. Keys are created
 * unpublished and published (or withdrawn) explicitly, so tests can stage
 * unknown keys and rotations. Counts fetches per path, so tests can see
 * caching and refetching.
 *
 * It is also a minimal authorization server for public clients, speaking
 * the real wire protocol of the authorization code grant with PKCE (RFC 6749
 * §4.1, RFC 7636): `/auth` approves the one test user at once and redirects
 * to the client's registered redirect URI with a code and the state (an
 * unknown client or another redirect URI gets a 400 page, not a redirect);
 * `/token` redeems a code once, for the client and redirect URI it was
 * issued to and the verifier of its S256 challenge, and answers a signed JWT
 * access token and ID token, with CORS headers so a browser page can call it.
 */
export interface LocalIssuer {
  /** The issuer URL, with a path as Keycloak's realms have. */
  issuer: string;
  jwksUrl: string;
  /** Fetches per request path (with query), e.g. fetches("/realms/test/jwks"). */
  fetches(path: string): number;
  /** Creates a key pair; it signs tokens but is not in the JWKS until published. */
  createKey(alg: "RS256" | "ES256"): Promise<string>;
  publish(kid: string): void;
  withdraw(kid: string): void;
  /** Signs `claims` (merged over valid defaults for `audience`) with the key `kid`. */
  sign(kid: string, claims?: JWTPayload & Record<string, unknown>, header?: Record<string, unknown>): Promise<string>;
  /** The public key of `kid` as a JWK, e.g. to attempt algorithm confusion with it. */
  publicJwk(kid: string): JWK;
  /** Registers a public client (no secret) and its one redirect URI with the authorization server. */
  registerClient(clientId: string, redirectUri: string): void;
  /** The user `/auth` approves: tokens are signed with `kid` and carry `claims` over the defaults of `sign`. */
  approveAs(kid: string, claims?: JWTPayload & Record<string, unknown>): void;
  close(): Promise<void>;
}

/** A code `/auth` issued and `/token` has not redeemed yet. */
interface Grant {
  clientId: string;
  redirectUri: string;
  challenge: string;
  nonce: string | undefined;
  scope: string;
  expires: number;
}

const verifierShape = /^[A-Za-z0-9\-._~]{43,128}$/;
const s256 = (verifier: string) => createHash("sha256").update(verifier, "ascii").digest("base64url");

/** The CORS headers of an answer a browser page at `origin` may read (the token endpoint and discovery). */
const corsHeaders = (request: IncomingMessage): Record<string, string> => ({
  "access-control-allow-origin": request.headers.origin ?? "*",
  vary: "origin",
});

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });
}

interface KeyEntry {
  alg: "RS256" | "ES256";
  privateKey: CryptoKey;
  publicJwk: JWK;
}

export async function startLocalIssuer(defaults: {
  audience: string;
  tenantClaim?: string;
  tenant?: string;
}): Promise<LocalIssuer> {
  const keys = new Map<string, KeyEntry>();
  const published = new Set<string>();
  const counts = new Map<string, number>();
  const clients = new Map<string, string>();
  const grants = new Map<string, Grant>();
  let user: { kid: string; claims: JWTPayload & Record<string, unknown> } | undefined;
  let origin = "";
  const realm = "/realms/test";

  async function signWith(kid: string, payload: JWTPayload & Record<string, unknown>): Promise<string> {
    const key = keys.get(kid);
    if (key === undefined) throw new Error(`no key ${kid}`);
    return new SignJWT(payload).setProtectedHeader({ alg: key.alg, kid, typ: "JWT" }).sign(key.privateKey);
  }

  /** GET /auth: approves the test user at once, or refuses as RFC 6749 §4.1.2.1 says. */
  function authorize(query: URLSearchParams, response: ServerResponse): void {
    const clientId = query.get("client_id") ?? "";
    const redirectUri = query.get("redirect_uri") ?? "";
    const registered = clients.get(clientId);
    // Never redirect to a URI the client did not register: answer the browser directly.
    if (registered === undefined || registered !== redirectUri) {
      response.writeHead(400, { "content-type": "text/plain" });
      response.end(registered === undefined ? "unknown client_id" : "redirect_uri is not the client's registered one");
      return;
    }
    const back = (parameters: Record<string, string>) => {
      const target = new URL(redirectUri);
      for (const [name, value] of Object.entries(parameters)) target.searchParams.set(name, value);
      const state = query.get("state");
      if (state !== null) target.searchParams.set("state", state);
      response.writeHead(302, { location: target.href }).end();
    };
    const challenge = query.get("code_challenge") ?? "";
    if (query.get("response_type") !== "code") back({ error: "unsupported_response_type" });
    else if (query.get("code_challenge_method") !== "S256" || !/^[A-Za-z0-9_-]{43}$/.test(challenge))
      back({ error: "invalid_request", error_description: "PKCE with code_challenge_method S256 is required" });
    else if (user === undefined) back({ error: "access_denied", error_description: "no test user" });
    else {
      const code = randomBytes(24).toString("base64url");
      const nonce = query.get("nonce") ?? undefined;
      const scope = query.get("scope") ?? "";
      grants.set(code, { clientId, redirectUri, challenge, nonce, scope, expires: Date.now() + 60_000 });
      back({ code });
    }
  }

  /** POST /token: redeems a code once for its client, redirect URI and PKCE verifier. */
  async function token(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const answer = (status: number, body: Record<string, unknown>) => {
      response.writeHead(status, {
        "content-type": "application/json",
        "cache-control": "no-store",
        ...corsHeaders(request),
      });
      response.end(JSON.stringify(body));
    };
    const refuse = (error: string, description: string) => answer(400, { error, error_description: description });
    if (!(request.headers["content-type"] ?? "").startsWith("application/x-www-form-urlencoded"))
      return refuse("invalid_request", "expected an application/x-www-form-urlencoded body");
    const form = new URLSearchParams(await readBody(request));
    if (form.get("grant_type") !== "authorization_code")
      return refuse("unsupported_grant_type", "only authorization_code is supported");
    const code = form.get("code") ?? "";
    const grant = grants.get(code);
    grants.delete(code); // Once: a second attempt with the same code fails, whatever became of the first.
    if (grant === undefined || grant.expires < Date.now())
      return refuse("invalid_grant", "unknown, used or expired code");
    if (form.get("client_id") !== grant.clientId)
      return refuse("invalid_grant", "the code was issued to another client");
    if (form.get("redirect_uri") !== grant.redirectUri)
      return refuse("invalid_grant", "redirect_uri differs from the authorization request's");
    const verifier = form.get("code_verifier") ?? "";
    if (!verifierShape.test(verifier) || s256(verifier) !== grant.challenge)
      return refuse("invalid_grant", "PKCE verification failed: the code_verifier does not match the code_challenge");
    if (user === undefined) return refuse("invalid_grant", "no test user");
    const now = Math.floor(Date.now() / 1000);
    const accessToken = await tokens.sign(user.kid, user.claims);
    const idToken = await signWith(user.kid, {
      iss: `${origin}${realm}`,
      aud: grant.clientId,
      sub: (user.claims.sub as string | undefined) ?? "dora",
      iat: now,
      exp: now + 300,
      ...(grant.nonce === undefined ? {} : { nonce: grant.nonce }),
    });
    answer(200, {
      access_token: accessToken,
      token_type: "Bearer",
      expires_in: 300,
      id_token: idToken,
      scope: grant.scope,
    });
  }

  const server: Server = createServer((request, response) => {
    const path = request.url ?? "/";
    counts.set(path, (counts.get(path) ?? 0) + 1);
    const issuer = `${origin}${realm}`;
    const url = new URL(path, origin);
    const json = (body: unknown) => {
      response.writeHead(200, { "content-type": "application/json", ...corsHeaders(request) });
      response.end(JSON.stringify(body));
    };
    if (path === `${realm}/.well-known/openid-configuration`) {
      json({
        issuer,
        jwks_uri: `${issuer}/jwks`,
        authorization_endpoint: `${issuer}/auth`,
        token_endpoint: `${issuer}/token`,
        response_types_supported: ["code"],
        grant_types_supported: ["authorization_code"],
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["none"],
        subject_types_supported: ["public"],
        id_token_signing_alg_values_supported: ["RS256", "ES256"],
      });
    } else if (path.startsWith(`${realm}/jwks`)) {
      json({ keys: [...published].map((kid) => keys.get(kid)!.publicJwk) });
    } else if (url.pathname === `${realm}/auth` && request.method === "GET") {
      authorize(url.searchParams, response);
    } else if (url.pathname === `${realm}/token` && request.method === "OPTIONS") {
      response
        .writeHead(204, {
          ...corsHeaders(request),
          "access-control-allow-methods": "POST",
          "access-control-allow-headers": "content-type, accept",
        })
        .end();
    } else if (url.pathname === `${realm}/token` && request.method === "POST") {
      token(request, response).catch(() => response.writeHead(500).end());
    } else {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const issuer = `${origin}${realm}`;

  const tokens: LocalIssuer = {
    issuer,
    jwksUrl: `${issuer}/jwks`,
    fetches: (path) => counts.get(path) ?? 0,
    async createKey(alg) {
      const pair = await generateKeyPair(alg, { extractable: true });
      const kid = `${alg.toLowerCase()}-${keys.size + 1}`;
      keys.set(kid, {
        alg,
        privateKey: pair.privateKey,
        publicJwk: { ...(await exportJWK(pair.publicKey)), kid, alg, use: "sig" },
      });
      return kid;
    },
    publish: (kid) => void published.add(kid),
    withdraw: (kid) => void published.delete(kid),
    async sign(kid, claims = {}, header = {}) {
      const key = keys.get(kid);
      if (key === undefined) throw new Error(`no key ${kid}`);
      const now = Math.floor(Date.now() / 1000);
      const payload = {
        iss: issuer,
        aud: defaults.audience,
        sub: "dora",
        [defaults.tenantClaim ?? "tenant"]: defaults.tenant ?? "acme",
        groups: ["eng"],
        scope: "openid context:read context:write",
        iat: now,
        nbf: now,
        exp: now + 300,
        ...claims,
      };
      return new SignJWT(payload).setProtectedHeader({ alg: key.alg, kid, typ: "JWT", ...header }).sign(key.privateKey);
    },
    publicJwk: (kid) => keys.get(kid)!.publicJwk,
    registerClient: (clientId, redirectUri) => void clients.set(clientId, redirectUri),
    approveAs(kid, claims = {}) {
      user = { kid, claims };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  return tokens;
}
