/**
 * The pure parts of the console's OIDC sign-in (authorization code with
 * PKCE, RFC 7636): random values, the S256 code challenge, the authorization
 * URL, the token request's body and reading what the issuer sent back. Only
 * Web Crypto and URL APIs, so they run alike in the browser and under test.
 */

/** What a code_verifier may be: 43 to 128 unreserved characters (RFC 7636 §4.1). */
export const codeVerifierShape = /^[A-Za-z0-9\-._~]{43,128}$/;

/** Bytes as base64url without padding (RFC 4648 §5). */
export function base64url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** `bytes` random bytes from crypto.getRandomValues, as base64url (32 bytes make 43 characters). */
export function randomToken(bytes = 32): string {
  return base64url(crypto.getRandomValues(new Uint8Array(bytes)));
}

/** A fresh code_verifier: 64 random bytes, 86 characters. */
export function createCodeVerifier(): string {
  return randomToken(64);
}

/** The S256 code_challenge of a verifier: BASE64URL(SHA-256(ASCII(verifier))). */
export async function codeChallenge(verifier: string): Promise<string> {
  if (!codeVerifierShape.test(verifier)) throw new Error("a code_verifier is 43 to 128 unreserved characters");
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  return base64url(new Uint8Array(digest));
}

export interface AuthorizationRequest {
  authorizationEndpoint: string;
  clientId: string;
  redirectUri: string;
  scope: string;
  state: string;
  nonce: string;
  codeChallenge: string;
}

/** The authorization endpoint's URL with the request's parameters added to any it already has. */
export function authorizationUrl(request: AuthorizationRequest): string {
  const url = new URL(request.authorizationEndpoint);
  const parameters: [string, string][] = [
    ["response_type", "code"],
    ["client_id", request.clientId],
    ["redirect_uri", request.redirectUri],
    ["scope", request.scope],
    ["state", request.state],
    ["nonce", request.nonce],
    ["code_challenge", request.codeChallenge],
    ["code_challenge_method", "S256"],
  ];
  for (const [name, value] of parameters) url.searchParams.set(name, value);
  return url.href;
}

/** The form body of the token request that redeems `code` (RFC 6749 §4.1.3 with the PKCE verifier). */
export function tokenRequestBody(request: {
  code: string;
  redirectUri: string;
  clientId: string;
  codeVerifier: string;
}): URLSearchParams {
  return new URLSearchParams({
    grant_type: "authorization_code",
    code: request.code,
    redirect_uri: request.redirectUri,
    client_id: request.clientId,
    code_verifier: request.codeVerifier,
  });
}

/** What a page load's query says about a return from the issuer. */
export type Callback =
  | { kind: "none" }
  | { kind: "error"; error: string; description: string }
  | { kind: "code"; code: string; state: string };

/** Reads a redirect back from the issuer out of `search` (location.search): a code with its state, an error, or none. */
export function readCallback(search: string): Callback {
  const query = new URLSearchParams(search);
  const error = query.get("error");
  if (error !== null) return { kind: "error", error, description: query.get("error_description") ?? "" };
  const code = query.get("code");
  const state = query.get("state");
  if (code === null && state === null) return { kind: "none" };
  if (code === null || code === "")
    return { kind: "error", error: "invalid_request", description: "no code came back" };
  return { kind: "code", code, state: state ?? "" };
}

/**
 * The `nonce` claim of an ID token, read without checking its signature: the
 * token came straight from the token endpoint over the connection the
 * browser checked, which OIDC Core §3.1.3.7 allows in place of the signature.
 */
export function idTokenNonce(idToken: string): string | undefined {
  const payload = idToken.split(".")[1];
  if (payload === undefined) return undefined;
  try {
    const padded = payload.replace(/-/g, "+").replace(/_/g, "/");
    const text = new TextDecoder().decode(Uint8Array.from(atob(padded), (char) => char.charCodeAt(0)));
    const claims = JSON.parse(text) as { nonce?: unknown };
    return typeof claims.nonce === "string" ? claims.nonce : undefined;
  } catch {
    return undefined;
  }
}
