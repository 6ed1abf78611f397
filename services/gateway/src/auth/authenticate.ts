import { hashApiKey, isApiKeyShaped } from "@context-hub/common";
import type { Principal } from "../principal.js";
import type { KeyDirectory } from "./key-directory.js";

/** Why a request was refused, in the terms of RFC 6750 §3. */
export interface AuthFailure {
  status: 401 | 403;
  error: "invalid_request" | "invalid_token" | "insufficient_scope";
  description: string;
}

export type AuthOutcome = { ok: true; principal: Principal } | { ok: false; failure: AuthFailure };

/** The parts of an HTTP request authentication looks at. */
export interface CredentialCarrier {
  authorization: string | undefined;
  apiKey: string | undefined;
}

export interface Authenticator {
  authenticate(request: CredentialCarrier): Promise<AuthOutcome>;
}

/** Auth off: every request is the one local principal. */
export function createLocalAuthenticator(principal: Principal): Authenticator {
  return { authenticate: async () => ({ ok: true, principal }) };
}

const missing: AuthFailure = { status: 401, error: "invalid_request", description: "Authentication required: send Authorization: Bearer <API key>" };
const unknownKey: AuthFailure = { status: 401, error: "invalid_token", description: "The API key is not valid (unknown or revoked)" };

/** Reads the presented key: `Authorization: Bearer chk_…` or `X-API-Key: chk_…`. */
export function presentedCredential(request: CredentialCarrier): string | undefined {
  const authorization = request.authorization?.trim();
  if (authorization !== undefined && authorization.length > 0) {
    const match = /^Bearer\s+(\S+)$/i.exec(authorization);
    return match?.[1] ?? "";
  }
  const apiKey = request.apiKey?.trim();
  return apiKey === undefined || apiKey.length === 0 ? undefined : apiKey;
}

/** API-key authentication against a key directory (file-provisioned and store-managed keys). */
export function createApiKeyAuthenticator(directory: KeyDirectory, now: () => Date = () => new Date()): Authenticator {
  return {
    async authenticate(request) {
      const credential = presentedCredential(request);
      if (credential === undefined) return { ok: false, failure: missing };
      if (!isApiKeyShaped(credential)) return { ok: false, failure: { status: 401, error: "invalid_token", description: "Malformed credential: expected an API key starting with chk_" } };
      const record = await directory.lookup(hashApiKey(credential));
      if (record === undefined) return { ok: false, failure: unknownKey };
      if (record.expiresAt !== undefined && record.expiresAt.getTime() <= now().getTime()) {
        return { ok: false, failure: { status: 401, error: "invalid_token", description: "The API key has expired" } };
      }
      return { ok: true, principal: record.principal };
    },
  };
}

/** The WWW-Authenticate challenge for a failure (RFC 6750 §3, RFC 9728 §5.1 when metadata is published). */
export function challengeFor(failure: AuthFailure, resourceMetadataUrl: string | undefined): string {
  const parts = [`Bearer realm="context-hub"`, `error="${failure.error}"`, `error_description="${failure.description.replaceAll('"', "'")}"`];
  if (resourceMetadataUrl !== undefined) parts.push(`resource_metadata="${resourceMetadataUrl}"`);
  return parts.join(", ");
}
