import {
  apiKeyPrefix,
  hashApiKey,
  isApiKeyShaped,
  isReservedSubject,
  reservedSubjectMessage,
} from "@context-hub/common";
import type { Principal } from "../principal.js";
import { revokedKey, type KeyDirectory } from "./key-directory.js";

/**
 * Why a request was refused, in the terms of RFC 6750 §3. `missing` marks a
 * request that carried no credential at all: its challenge names no error
 * (RFC 6750 §3.1). 503 means the credential could not be checked right now
 * (the identity provider did not answer), which is not the caller's fault.
 */
export interface AuthFailure {
  status: 401 | 403 | 503;
  error: "invalid_request" | "invalid_token" | "insufficient_scope" | "temporarily_unavailable";
  description: string;
  missing?: boolean;
  /** For insufficient_scope: the scope(s) the request needs. */
  scope?: string;
}

/** How a principal was established. */
export type CredentialKind = "local" | "api-key" | "oidc";

export type AuthOutcome =
  | { ok: true; principal: Principal; credential: CredentialKind }
  | { ok: false; failure: AuthFailure };

/** The parts of an HTTP request authentication looks at. */
export interface CredentialCarrier {
  authorization: string | undefined;
  apiKey: string | undefined;
}

export interface Authenticator {
  authenticate(request: CredentialCarrier): Promise<AuthOutcome>;
}

/**
 * One way of checking a bearer credential. The gateway chains verifiers
 * (see {@link createBearerAuthenticator}); each says which credentials are
 * its to judge, so a credential is checked by exactly one of them.
 */
export interface CredentialVerifier {
  /** What this verifier accepts, for error messages ("an API key (chk_…)"). */
  accepts: string;
  /** Whether the credential is this verifier's to judge, by its shape alone. */
  handles(credential: string): boolean;
  verify(credential: string): Promise<AuthOutcome>;
}

/** Auth off: every request is the one local principal. */
export function createLocalAuthenticator(principal: Principal): Authenticator {
  return { authenticate: async () => ({ ok: true, principal, credential: "local" }) };
}

/**
 * Reads the presented credential: `Authorization: Bearer …`, its synonym
 * `Authorization: API-Key …` (the scheme some MCP clients send keys with),
 * or `X-API-Key: …`; "" for an Authorization header of another scheme.
 */
export function presentedCredential(request: CredentialCarrier): string | undefined {
  const authorization = request.authorization?.trim();
  if (authorization !== undefined && authorization.length > 0) {
    const match = /^(?:Bearer|API-Key)\s+(\S+)$/i.exec(authorization);
    return match?.[1] ?? "";
  }
  const apiKey = request.apiKey?.trim();
  return apiKey === undefined || apiKey.length === 0 ? undefined : apiKey;
}

/**
 * Authenticates a request with the first verifier that handles its
 * credential. No credential, an Authorization header of another scheme, and
 * a credential no verifier handles are each refused with a message naming
 * what the server accepts.
 */
export function createBearerAuthenticator(verifiers: CredentialVerifier[]): Authenticator {
  const accepted = verifiers.map((verifier) => verifier.accepts).join(" or ");
  return {
    async authenticate(request) {
      const credential = presentedCredential(request);
      if (credential === undefined)
        return {
          ok: false,
          failure: {
            status: 401,
            error: "invalid_request",
            description: `Authentication required: send Authorization: Bearer <${accepted}>`,
            missing: true,
          },
        };
      if (credential === "")
        return {
          ok: false,
          failure: {
            status: 401,
            error: "invalid_request",
            description: `Unsupported Authorization scheme: send Authorization: Bearer <${accepted}>`,
          },
        };
      const verifier = verifiers.find((candidate) => candidate.handles(credential));
      if (verifier === undefined)
        return {
          ok: false,
          failure: { status: 401, error: "invalid_token", description: `Malformed credential: expected ${accepted}` },
        };
      return verifier.verify(credential);
    },
  };
}

/** API keys (file-provisioned and store-managed), recognised by their chk_ prefix. */
export function createApiKeyVerifier(directory: KeyDirectory, now: () => Date = () => new Date()): CredentialVerifier {
  return {
    accepts: `an API key (${apiKeyPrefix}…)`,
    handles: (credential) => credential.startsWith(apiKeyPrefix),
    async verify(credential) {
      if (!isApiKeyShaped(credential))
        return {
          ok: false,
          failure: {
            status: 401,
            error: "invalid_token",
            description: `Malformed credential: an API key is ${apiKeyPrefix} followed by 43 base64url characters`,
          },
        };
      const record = await directory.lookup(hashApiKey(credential));
      if (record === undefined || record === revokedKey)
        return {
          ok: false,
          failure: {
            status: 401,
            error: "invalid_token",
            description: "The API key is not valid (unknown or revoked)",
          },
        };
      if (record.expiresAt !== undefined && record.expiresAt.getTime() <= now().getTime()) {
        return { ok: false, failure: { status: 401, error: "invalid_token", description: "The API key has expired" } };
      }
      // A key made before the name was reserved (or written straight into the store) still cannot act as the operator.
      if (isReservedSubject(record.principal.subject)) {
        return {
          ok: false,
          failure: {
            status: 401,
            error: "invalid_token",
            description: `The API key's ${reservedSubjectMessage("subject", record.principal.subject)}`,
          },
        };
      }
      return { ok: true, principal: record.principal, credential: "api-key" };
    },
  };
}

/** A quoted-string as RFC 6750 allows in a challenge: printable ASCII without `"` or `\`. */
const quoted = (value: string) =>
  `"${value
    .replaceAll("…", "...")
    .replaceAll('"', "'")
    .replace(/[^\x20-\x7E]|\\/g, "?")}"`;

/**
 * The WWW-Authenticate challenge for a refused request (RFC 6750 §3). It
 * names `resource_metadata` (RFC 9728 §5.1) when the server publishes
 * protected-resource metadata, so an OAuth client can find the issuer.
 */
export function challengeFor(failure: AuthFailure, resourceMetadataUrl: string | undefined): string {
  const parts = [`Bearer realm="context-hub"`];
  if (failure.missing !== true)
    parts.push(`error="${failure.error}"`, `error_description=${quoted(failure.description)}`);
  if (failure.scope !== undefined) parts.push(`scope=${quoted(failure.scope)}`);
  if (resourceMetadataUrl !== undefined) parts.push(`resource_metadata=${quoted(resourceMetadataUrl)}`);
  return parts.join(", ");
}
