import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from "jose";

/**
 * An OpenID provider for tests, on 127.0.0.1: real key pairs, a real JWKS
 * endpoint and discovery document over HTTP, and a signer. Keys are created
 * unpublished and published (or withdrawn) explicitly, so tests can stage
 * unknown keys and rotations. Counts fetches per path, so tests can see
 * caching and refetching.
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
  close(): Promise<void>;
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
  let origin = "";
  const realm = "/realms/test";

  const server: Server = createServer((request, response) => {
    const path = request.url ?? "/";
    counts.set(path, (counts.get(path) ?? 0) + 1);
    const issuer = `${origin}${realm}`;
    const json = (body: unknown) => {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify(body));
    };
    if (path === `${realm}/.well-known/openid-configuration`) {
      json({
        issuer,
        jwks_uri: `${issuer}/jwks`,
        authorization_endpoint: `${issuer}/auth`,
        token_endpoint: `${issuer}/token`,
        response_types_supported: ["code"],
        subject_types_supported: ["public"],
        id_token_signing_alg_values_supported: ["RS256", "ES256"],
      });
    } else if (path.startsWith(`${realm}/jwks`)) {
      json({ keys: [...published].map((kid) => keys.get(kid)!.publicJwk) });
    } else {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const issuer = `${origin}${realm}`;

  return {
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
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
