/**
 * Sign-in with the hub's OpenID provider: authorization code with PKCE, as
 * a public client with no secret. The console reads whether the gateway
 * offers it (/console/config.json), sends the browser to the issuer's
 * authorization endpoint with a fresh verifier's challenge, and on the way
 * back checks the state, redeems the code at the token endpoint with the
 * verifier and keeps the access token where an API key would be kept. The
 * verifier, state and nonce wait in sessionStorage for the one return they
 * belong to and are removed when it comes.
 */
import { ProblemError, storeKey } from "./api.js";
import {
  authorizationUrl,
  codeChallenge,
  createCodeVerifier,
  idTokenNonce,
  randomToken,
  readCallback,
  tokenRequestBody,
} from "./pkce.js";

/** The gateway's OIDC sign-in settings. */
export interface OidcSignIn {
  issuer: string;
  clientId: string;
  scopes: string;
}

interface Pending {
  state: string;
  verifier: string;
  nonce: string;
}

interface Discovery {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
}

const pendingStorageName = "context-hub-console-oidc-pending";

const request: RequestInit = { credentials: "omit", cache: "no-store", headers: { accept: "application/json" } };

/** The URL the issuer sends the browser back to: the console's own page. */
export const redirectUri = () => `${location.origin}/console/`;

/** The issuer's host, to name it on the sign-in button. */
export const issuerHost = (signIn: OidcSignIn) => new URL(signIn.issuer).host;

function failure(
  detail: string,
  remedy = "sign in again, or ask an administrator to check the OIDC client",
): ProblemError {
  return new ProblemError(0, "OIDC sign-in failed", detail, remedy, undefined);
}

/** The gateway's sign-in settings; undefined when OIDC sign-in is off or the settings cannot be read. */
export async function loadOidcSignIn(): Promise<OidcSignIn | undefined> {
  try {
    const response = await fetch(new URL("/console/config.json", location.origin), request);
    const settings = (await response.json()) as { oidc?: { issuer?: unknown; client_id?: unknown; scopes?: unknown } };
    const oidc = settings.oidc;
    if (!response.ok || typeof oidc !== "object" || oidc === null) return undefined;
    const { issuer, client_id: clientId, scopes } = oidc;
    if (typeof issuer !== "string" || typeof clientId !== "string" || typeof scopes !== "string") return undefined;
    return { issuer, clientId, scopes };
  } catch {
    return undefined;
  }
}

const isWebUrl = (value: unknown): value is string => {
  try {
    return typeof value === "string" && ["https:", "http:"].includes(new URL(value).protocol);
  } catch {
    return false;
  }
};

/** The issuer's discovery document, checked to name the configured issuer and web endpoints. */
async function discover(signIn: OidcSignIn): Promise<Discovery> {
  const url = `${signIn.issuer.replace(/\/$/, "")}/.well-known/openid-configuration`;
  let document: Partial<Discovery>;
  try {
    const response = await fetch(url, request);
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    document = (await response.json()) as Partial<Discovery>;
  } catch (error) {
    throw failure(
      `The issuer's discovery document (${url}) could not be read: ${String(error)}`,
      "check that the issuer is up and allows this origin (CORS)",
    );
  }
  if (document.issuer !== signIn.issuer) throw failure(`The discovery document names another issuer.`);
  if (!isWebUrl(document.authorization_endpoint) || !isWebUrl(document.token_endpoint))
    throw failure("The discovery document has no usable authorization_endpoint and token_endpoint.");
  return document as Discovery;
}

/** Sends the browser to the issuer's authorization endpoint; the issuer sends it back to the console with a code. */
export async function startOidcSignIn(signIn: OidcSignIn): Promise<void> {
  const discovery = await discover(signIn);
  const pending: Pending = { state: randomToken(), verifier: createCodeVerifier(), nonce: randomToken() };
  sessionStorage.setItem(pendingStorageName, JSON.stringify(pending));
  location.assign(
    authorizationUrl({
      authorizationEndpoint: discovery.authorization_endpoint,
      clientId: signIn.clientId,
      redirectUri: redirectUri(),
      scope: signIn.scopes,
      state: pending.state,
      nonce: pending.nonce,
      codeChallenge: await codeChallenge(pending.verifier),
    }),
  );
}

/** The pending sign-in's values, removed from sessionStorage: each serves one return only. */
function takePending(): Pending | undefined {
  const text = sessionStorage.getItem(pendingStorageName);
  sessionStorage.removeItem(pendingStorageName);
  try {
    const pending = JSON.parse(text ?? "null") as Partial<Pending> | null;
    const fields = [pending?.state, pending?.verifier, pending?.nonce];
    return fields.every((field) => typeof field === "string" && field !== "") ? (pending as Pending) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Finishes a return from the issuer, if this page load is one: false when it
 * is not; true once the access token is stored; throws a ProblemError (with
 * nothing stored) when the issuer refused or the return does not match the
 * sign-in this tab started. Either way the code and state leave the URL.
 */
export async function finishOidcSignIn(signIn: OidcSignIn | undefined): Promise<boolean> {
  const callback = readCallback(location.search);
  if (callback.kind === "none") return false;
  const pending = takePending();
  history.replaceState(null, "", `${location.pathname}${location.hash}`);
  if (callback.kind === "error")
    throw failure(
      `The issuer answered ${callback.error}${callback.description === "" ? "" : `: ${callback.description}`}.`,
    );
  if (signIn === undefined) throw failure("This hub does not offer OIDC sign-in.", "sign in with an API key");
  if (pending === undefined || callback.state !== pending.state)
    throw failure("The answer from the issuer does not belong to a sign-in started in this tab (state mismatch).");
  const discovery = await discover(signIn);
  let response: Response;
  try {
    response = await fetch(discovery.token_endpoint, {
      ...request,
      method: "POST",
      headers: { accept: "application/json", "content-type": "application/x-www-form-urlencoded" },
      body: tokenRequestBody({
        code: callback.code,
        redirectUri: redirectUri(),
        clientId: signIn.clientId,
        codeVerifier: pending.verifier,
      }),
    });
  } catch (error) {
    throw failure(
      `The token endpoint did not answer: ${String(error)}`,
      "check that the issuer allows this origin (CORS)",
    );
  }
  const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (!response.ok) {
    const reason = [body.error, body.error_description].filter((part) => typeof part === "string").join(": ");
    throw failure(
      `The token endpoint refused the code (HTTP ${response.status}${reason === "" ? "" : `, ${reason}`}).`,
    );
  }
  const token = body.access_token;
  if (typeof token !== "string" || token === "") throw failure("The token endpoint sent no access_token.");
  if (typeof body.token_type === "string" && body.token_type.toLowerCase() !== "bearer")
    throw failure(`The token endpoint sent a ${body.token_type} token, not a bearer token.`);
  if (typeof body.id_token === "string" && idTokenNonce(body.id_token) !== pending.nonce)
    throw failure("The ID token does not carry this sign-in's nonce.");
  storeKey(token);
  return true;
}
