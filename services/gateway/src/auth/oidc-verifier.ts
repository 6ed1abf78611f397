import {
  createRemoteJWKSet,
  errors as joseErrors,
  jwtVerify,
  type JWTHeaderParameters,
  type FlattenedJWSInput,
  type JWTVerifyGetKey,
} from "jose";
import { isLoopbackUrl } from "@context-hub/common";
import type { OidcConfig } from "../config.js";
import type { AuthOutcome, CredentialVerifier } from "./authenticate.js";
import { principalFromClaims } from "./token-claims.js";

/** The identity provider could not be asked (discovery or JWKS fetch failed): not the caller's fault. */
class IdentityProviderUnavailable extends Error {}

const jwtShape = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** Header `typ` values of access tokens (RFC 9068 `at+jwt`, or plain JWT as most issuers send). */
const accessTokenTypes = new Set(["jwt", "at+jwt", "application/at+jwt"]);

/** Errors jose raises about the token itself (as opposed to failing to fetch keys). */
const tokenErrorCodes = new Set([
  joseErrors.JWKSNoMatchingKey.code,
  joseErrors.JWKSMultipleMatchingKeys.code,
  joseErrors.JOSEAlgNotAllowed.code,
  joseErrors.JOSENotSupported.code,
  joseErrors.JWSInvalid.code,
  joseErrors.JWTInvalid.code,
  joseErrors.JWSSignatureVerificationFailed.code,
  joseErrors.JWTExpired.code,
  joseErrors.JWTClaimValidationFailed.code,
]);

async function fetchJson(url: string, timeoutMs: number): Promise<Record<string, unknown> | undefined> {
  const response = await fetch(url, {
    headers: { accept: "application/json" },
    redirect: "error",
    signal: AbortSignal.timeout(timeoutMs),
  });
  if (response.status === 404) return undefined;
  if (!response.ok) throw new IdentityProviderUnavailable(`${url} answered HTTP ${response.status}`);
  const body: unknown = await response.json();
  if (body === null || typeof body !== "object" || Array.isArray(body))
    throw new IdentityProviderUnavailable(`${url} did not return a JSON object`);
  return body as Record<string, unknown>;
}

/**
 * Finds the issuer's JWKS URL from its discovery document: OpenID Connect
 * (`<issuer>/.well-known/openid-configuration`), else RFC 8414
 * (`/.well-known/oauth-authorization-server<issuer path>`). The document
 * must name the same issuer, and its `jwks_uri` must be https (or loopback).
 */
export async function discoverJwksUrl(issuer: string, timeoutMs: number): Promise<string> {
  const base = new URL(issuer);
  const path = base.pathname.replace(/\/$/, "");
  const candidates = [
    `${issuer.replace(/\/$/, "")}/.well-known/openid-configuration`,
    `${base.origin}/.well-known/oauth-authorization-server${path}`,
  ];
  for (const candidate of candidates) {
    let document: Record<string, unknown> | undefined;
    try {
      document = await fetchJson(candidate, timeoutMs);
    } catch (error) {
      throw error instanceof IdentityProviderUnavailable
        ? error
        : new IdentityProviderUnavailable(
            `cannot fetch ${candidate}: ${error instanceof Error ? error.message : String(error)}`,
          );
    }
    if (document === undefined) continue;
    if (document.issuer !== issuer)
      throw new IdentityProviderUnavailable(
        `${candidate} names issuer ${JSON.stringify(document.issuer)}, not ${issuer}; set OIDC_ISSUER to exactly the issuer's value`,
      );
    const jwksUri = document.jwks_uri;
    if (typeof jwksUri !== "string")
      throw new IdentityProviderUnavailable(`${candidate} has no jwks_uri; set OIDC_JWKS_URL`);
    const url = new URL(jwksUri);
    if (url.protocol !== "https:" && !(url.protocol === "http:" && isLoopbackUrl(url)))
      throw new IdentityProviderUnavailable(`${candidate} names a jwks_uri that is not https: ${jwksUri}`);
    return jwksUri;
  }
  throw new IdentityProviderUnavailable(`no discovery document at ${candidates.join(" or ")}; set OIDC_JWKS_URL`);
}

/**
 * The issuer's signing keys: the JWKS is fetched on first use (its URL from
 * OIDC_JWKS_URL or discovery), cached for `jwksCacheMs`, and fetched again
 * when a token names an unknown key id — at most once per `jwksCooldownMs` —
 * so a rotated key is accepted as soon as the issuer publishes it.
 */
function createKeySource(config: OidcConfig): JWTVerifyGetKey {
  let remote: Promise<ReturnType<typeof createRemoteJWKSet>> | undefined;
  let failedAt = -Infinity;
  const resolve = () => {
    // A failed discovery is retried, but not on every request while the issuer is down.
    if (remote === undefined && performance.now() - failedAt >= Math.min(config.jwksCooldownMs, 5_000)) {
      remote = (
        config.jwksUrl !== undefined
          ? Promise.resolve(config.jwksUrl)
          : discoverJwksUrl(config.issuer, config.httpTimeoutMs)
      ).then((url) =>
        createRemoteJWKSet(new URL(url), {
          cacheMaxAge: config.jwksCacheMs,
          cooldownDuration: config.jwksCooldownMs,
          timeoutDuration: config.httpTimeoutMs,
        }),
      );
      remote.catch(() => {
        remote = undefined;
        failedAt = performance.now();
      });
    }
    return (
      remote ??
      Promise.reject(new IdentityProviderUnavailable("the issuer's discovery document could not be fetched recently"))
    );
  };
  return async (header: JWTHeaderParameters, token: FlattenedJWSInput) => {
    const keys = await resolve();
    try {
      return await keys(header, token);
    } catch (error) {
      if (error instanceof joseErrors.JOSEError && tokenErrorCodes.has(error.code)) throw error;
      throw new IdentityProviderUnavailable(
        `cannot fetch the issuer's signing keys: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  };
}

/** What to tell the caller about a token jose refused. */
function describeRejection(
  error: InstanceType<typeof joseErrors.JOSEError>,
  config: OidcConfig,
  header: { kid?: string; alg?: string },
): string {
  if (error instanceof joseErrors.JWTExpired) return "The access token has expired";
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    switch (error.claim) {
      case "nbf":
        return "The access token is not valid yet (nbf is in the future)";
      case "iss":
        return `The access token was issued by another issuer; this server accepts ${config.issuer}`;
      case "aud":
        return `The access token is for another audience; this server accepts ${config.audiences.join(" or ")}`;
      default:
        return `The access token's "${error.claim}" claim is not acceptable (${error.reason})`;
    }
  }
  if (error instanceof joseErrors.JOSEAlgNotAllowed)
    return `The access token's algorithm ${header.alg ?? "(none)"} is not allowed; accepted: ${config.algorithms.join(", ")}`;
  if (error instanceof joseErrors.JWKSNoMatchingKey)
    return `The access token is signed with a key the issuer does not publish (kid ${header.kid ?? "(none)"})`;
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) return "The access token's signature does not verify";
  return "The access token is not a well-formed signed JWT";
}

function decodeHeader(token: string): { kid?: string; alg?: string; typ?: string } {
  try {
    const header: unknown = JSON.parse(Buffer.from(token.split(".")[0] ?? "", "base64url").toString("utf8"));
    return header !== null && typeof header === "object"
      ? (header as { kid?: string; alg?: string; typ?: string })
      : {};
  } catch {
    return {};
  }
}

/**
 * OAuth 2.1 resource-server verification of JWT access tokens: signature
 * against the issuer's JWKS with an allow-listed algorithm, issuer, audience
 * (the resource URL or OIDC_AUDIENCE), `exp` and `nbf` within the clock
 * skew, and an access-token type; then the principal from the claims.
 */
export function createOidcVerifier(config: OidcConfig): CredentialVerifier {
  const keys = createKeySource(config);
  const refuse = (description: string): AuthOutcome => ({
    ok: false,
    failure: { status: 401, error: "invalid_token", description },
  });
  return {
    accepts: "an OIDC access token (JWT)",
    handles: (credential) => jwtShape.test(credential),
    async verify(token) {
      const header = decodeHeader(token);
      let payload: Record<string, unknown>;
      try {
        ({ payload } = await jwtVerify(token, keys, {
          issuer: config.issuer,
          audience: config.audiences,
          algorithms: config.algorithms,
          clockTolerance: config.clockSkewSeconds,
          requiredClaims: ["exp", "sub"],
        }));
      } catch (error) {
        if (error instanceof IdentityProviderUnavailable) {
          return {
            ok: false,
            failure: {
              status: 503,
              error: "temporarily_unavailable",
              description: `Cannot verify the access token right now: ${error.message}`,
            },
          };
        }
        if (error instanceof joseErrors.JOSEError) return refuse(describeRejection(error, config, header));
        throw error;
      }
      // An ID token is not an access token, even when its audience happens to match (Keycloak marks it typ "ID").
      if ((header.typ !== undefined && !accessTokenTypes.has(header.typ.toLowerCase())) || payload.typ === "ID") {
        return refuse("The token is not an access token (an ID token or another token type was sent)");
      }
      const mapped = principalFromClaims(payload, {
        tenant: config.tenant,
        groupsClaim: config.groupsClaim,
        scopesClaim: config.scopesClaim,
      });
      return mapped.ok ? { ok: true, principal: mapped.principal, credential: "oidc" } : refuse(mapped.description);
    },
  };
}
