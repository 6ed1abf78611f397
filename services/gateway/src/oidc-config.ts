/**
 * The OpenID Connect part of the gateway's configuration: the variables that
 * verify OIDC access tokens and the console's sign-in client, their checks,
 * and the settings they make. config.ts spreads these variables into the
 * gateway's one schema (docs/configuration.md is generated from it).
 */
import type { z } from "zod";
import { envInteger, envString, envVariable } from "@context-hub/common";
import { splitList, urlProblem } from "./config-values.js";

/** Asymmetric JWS algorithms only: the keys come from a public JWKS, so HMAC and `none` never apply. */
export const jwtAlgorithms = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
] as const;
export type JwtAlgorithm = (typeof jwtAlgorithms)[number];

/** The scopes the console asks for when CONSOLE_OIDC_SCOPES is unset. */
export const defaultConsoleScopes = "openid profile";

/** An OAuth scope list (RFC 6749 §3.3): scope tokens separated by single spaces. */
const scopeList = /^[\x21\x23-\x5b\x5d-\x7e]+( [\x21\x23-\x5b\x5d-\x7e]+)*$/;
/** An OAuth client id (RFC 6749 appendix A.1): printable ASCII. */
const clientIdShape = /^[\x20-\x7e]+$/;

/** The OIDC variables, in the order docs/configuration.md lists them. */
export const oidcEnvVariables = {
  OIDC_ISSUER: envString("").describe(
    "The issuer URL tokens carry in `iss`, exactly (Auth0's ends in `/`). Required with `oidc`; https unless loopback.",
  ),
  OIDC_AUDIENCE: envString("").describe(
    "Accepted `aud` values, comma-separated (e.g. Keycloak's client or Auth0's API identifier).",
  ),
  OIDC_JWKS_URL: envString("").describe("The issuer's JWKS; empty reads `jwks_uri` from the discovery document."),
  OIDC_TENANT_CLAIM: envString("").describe(
    "The claim naming the caller's tenant (exact name, else dotted path). With `oidc`, set this or `OIDC_TENANT`.",
  ),
  OIDC_TENANT: envString("").describe(
    "One fixed tenant for every token instead of a claim (not both; one of the two is required with `oidc`).",
  ),
  OIDC_GROUPS_CLAIM: envString("groups").describe("The claim listing the caller's groups."),
  OIDC_SCOPES_CLAIM: envString("").describe("The claim listing the caller's scopes (e.g. Auth0's `permissions`)."),
  OIDC_ALGORITHMS: envString(jwtAlgorithms.join(",")).describe(
    "Accepted JWS algorithms, comma-separated; only asymmetric ones are allowed.",
  ),
  OIDC_CLOCK_SKEW_SECONDS: envInteger(30, 0, 300).describe("Tolerance for `exp` and `nbf` (0–300)."),
  OIDC_JWKS_CACHE_MS: envInteger(600_000, 1_000, 86_400_000).describe(
    "How long fetched signing keys are used before they are fetched again.",
  ),
  OIDC_JWKS_COOLDOWN_MS: envInteger(30_000, 0, 3_600_000).describe(
    "Least time between refetches caused by unknown key ids.",
  ),
  OIDC_HTTP_TIMEOUT_MS: envInteger(5_000, 100, 60_000).describe("Deadline of discovery and JWKS requests."),
  CONSOLE_OIDC_CLIENT_ID: envString("").describe(
    "The web console's public OIDC client (authorization code with PKCE, no secret; redirect URI `https://HOST/console/`). Empty: the console signs in with API keys only. Only with `oidc`.",
  ),
  // No default in the parsed value: unset must be told apart from set, since setting it without oidc is refused.
  CONSOLE_OIDC_SCOPES: envVariable({ envType: "string", envDefault: defaultConsoleScopes })
    .transform((raw) => (raw === undefined || raw.trim() === "" ? undefined : raw.trim().split(/\s+/).join(" ")))
    .describe("Space-separated scopes the console's sign-in asks the issuer for. Only with `oidc`."),
};

type OidcEnv = { [K in keyof typeof oidcEnvVariables]: z.output<(typeof oidcEnvVariables)[K]> };

/** Reports each problem of the OIDC variables given the auth methods and public URL; `problem` records one. */
export function checkOidcEnv(
  env: OidcEnv & { CONTEXT_HUB_AUTH: readonly string[]; CONTEXT_HUB_PUBLIC_URL: string },
  problem: (path: string, message: string) => void,
): void {
  if (!env.CONTEXT_HUB_AUTH.includes("oidc")) {
    for (const name of ["CONSOLE_OIDC_CLIENT_ID", "CONSOLE_OIDC_SCOPES"] as const)
      if (env[name] !== undefined && env[name] !== "")
        problem(
          name,
          "only meaningful when CONTEXT_HUB_AUTH includes oidc: the console's OIDC sign-in gets access tokens the gateway verifies only in oidc mode; unset it, or set CONTEXT_HUB_AUTH=oidc (or api-key,oidc)",
        );
    return;
  }
  if (env.OIDC_ISSUER === "")
    problem("OIDC_ISSUER", "required when CONTEXT_HUB_AUTH includes oidc (the issuer URL your tokens carry in iss)");
  else {
    const bad = urlProblem(env.OIDC_ISSUER, false);
    if (bad !== undefined) problem("OIDC_ISSUER", bad);
  }
  if (env.OIDC_JWKS_URL !== "") {
    const bad = urlProblem(env.OIDC_JWKS_URL, false);
    if (bad !== undefined) problem("OIDC_JWKS_URL", bad);
  }
  if (env.CONTEXT_HUB_PUBLIC_URL === "") {
    problem(
      "CONTEXT_HUB_PUBLIC_URL",
      "required when CONTEXT_HUB_AUTH includes oidc: the MCP URL clients use, e.g. https://context.example.com/mcp (it is the protected resource and the default audience)",
    );
  }
  if (env.OIDC_TENANT !== "" && env.OIDC_TENANT_CLAIM !== "")
    problem(
      "OIDC_TENANT",
      "set either OIDC_TENANT (one fixed tenant) or OIDC_TENANT_CLAIM (the tenant comes from a claim), not both",
    );
  // No default claim: a token from an issuer that lets users set a claim of that name would choose its own tenant.
  if (env.OIDC_TENANT === "" && env.OIDC_TENANT_CLAIM === "") {
    problem(
      "OIDC_TENANT_CLAIM",
      "required when CONTEXT_HUB_AUTH includes oidc: set OIDC_TENANT_CLAIM to the claim naming the tenant (one only administrators can set), or OIDC_TENANT to one fixed tenant",
    );
  }
  const algorithms = splitList(env.OIDC_ALGORITHMS);
  const unsupported = algorithms.filter((algorithm) => !(jwtAlgorithms as readonly string[]).includes(algorithm));
  if (algorithms.length === 0 || unsupported.length > 0) {
    problem(
      "OIDC_ALGORITHMS",
      `expected a comma-separated subset of ${jwtAlgorithms.join(", ")}${unsupported.length > 0 ? `; not allowed: ${unsupported.join(", ")}` : ""}`,
    );
  }
  if (env.CONSOLE_OIDC_CLIENT_ID !== "" && !clientIdShape.test(env.CONSOLE_OIDC_CLIENT_ID))
    problem("CONSOLE_OIDC_CLIENT_ID", "expected printable ASCII characters only (an OAuth client_id)");
  if (env.CONSOLE_OIDC_SCOPES !== undefined && env.CONSOLE_OIDC_CLIENT_ID === "")
    problem("CONSOLE_OIDC_SCOPES", "set only with CONSOLE_OIDC_CLIENT_ID (the console's sign-in is off without it)");
  else if (env.CONSOLE_OIDC_SCOPES !== undefined && !scopeList.test(env.CONSOLE_OIDC_SCOPES))
    problem(
      "CONSOLE_OIDC_SCOPES",
      `expected space-separated OAuth scopes (printable ASCII without " or \\), got "${env.CONSOLE_OIDC_SCOPES}"`,
    );
}

export interface OidcConfig {
  issuer: string;
  /** Accepted audiences: OIDC_AUDIENCE, or the public resource URL. */
  audiences: string[];
  /** Empty: read `jwks_uri` from the issuer's discovery document. */
  jwksUrl: string | undefined;
  /** The tenant: from this claim, or fixed. */
  tenant: { claim: string } | { fixed: string };
  groupsClaim: string;
  /** Undefined: `scope` (space-separated), else `scp`. */
  scopesClaim: string | undefined;
  algorithms: JwtAlgorithm[];
  clockSkewSeconds: number;
  /** How long a fetched JWKS is trusted before it is fetched again. */
  jwksCacheMs: number;
  /** Least time between two JWKS fetches triggered by unknown key ids (a flood of made-up kids cannot hammer the issuer). */
  jwksCooldownMs: number;
  httpTimeoutMs: number;
  /** The console's sign-in with this issuer (authorization code with PKCE); undefined: API keys only. */
  console: { clientId: string; scopes: string } | undefined;
}

/** The OIDC settings of checked variables; `publicUrl` is the default audience. */
export function oidcConfigOf(raw: OidcEnv, publicUrl: string | undefined): OidcConfig {
  return {
    issuer: raw.OIDC_ISSUER,
    audiences: raw.OIDC_AUDIENCE === "" ? [publicUrl!] : splitList(raw.OIDC_AUDIENCE),
    jwksUrl: raw.OIDC_JWKS_URL === "" ? undefined : raw.OIDC_JWKS_URL,
    tenant: raw.OIDC_TENANT !== "" ? { fixed: raw.OIDC_TENANT } : { claim: raw.OIDC_TENANT_CLAIM },
    groupsClaim: raw.OIDC_GROUPS_CLAIM,
    scopesClaim: raw.OIDC_SCOPES_CLAIM === "" ? undefined : raw.OIDC_SCOPES_CLAIM,
    algorithms: splitList(raw.OIDC_ALGORITHMS) as JwtAlgorithm[],
    clockSkewSeconds: raw.OIDC_CLOCK_SKEW_SECONDS,
    jwksCacheMs: raw.OIDC_JWKS_CACHE_MS,
    jwksCooldownMs: raw.OIDC_JWKS_COOLDOWN_MS,
    httpTimeoutMs: raw.OIDC_HTTP_TIMEOUT_MS,
    console:
      raw.CONSOLE_OIDC_CLIENT_ID === ""
        ? undefined
        : { clientId: raw.CONSOLE_OIDC_CLIENT_ID, scopes: raw.CONSOLE_OIDC_SCOPES ?? defaultConsoleScopes },
  };
}
