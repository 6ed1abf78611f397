import { isReservedSubject, reservedSubjectMessage } from "@context-hub/common";
import { scopes, type Principal, type Scope } from "../principal.js";

/** Where each part of a principal comes from in a verified token's claims. */
export interface ClaimMapping {
  /** The tenant: from this claim, or one fixed tenant for every token. */
  tenant: { claim: string } | { fixed: string };
  groupsClaim: string;
  /** Undefined: `scope` (space-separated, RFC 8693/9068), else `scp` (array or string). */
  scopesClaim: string | undefined;
}

export type ClaimsOutcome = { ok: true; principal: Principal } | { ok: false; description: string };

const maxName = 256;
const maxGroups = 100;

const isName = (value: unknown): value is string =>
  typeof value === "string" && value.length > 0 && value.length <= maxName && !value.includes("\u0000");
const isScope = (value: string): value is Scope => (scopes as readonly string[]).includes(value);

/**
 * A claim by name: the top-level claim of exactly that name first (Auth0's
 * namespaced claims such as `https://example.com/tenant` contain dots), then
 * a dotted path into nested objects (Keycloak's `realm_access.roles`).
 */
export function readClaim(claims: Record<string, unknown>, name: string): unknown {
  if (Object.hasOwn(claims, name)) return claims[name];
  let current: unknown = claims;
  for (const part of name.split(".")) {
    if (current === null || typeof current !== "object" || Array.isArray(current) || !Object.hasOwn(current, part))
      return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

/** A claim holding a list: a JSON array of strings, or one string split on spaces. */
function readList(claims: Record<string, unknown>, name: string, splitString: boolean): string[] | undefined {
  const value = readClaim(claims, name);
  if (value === undefined || value === null) return undefined;
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === "string");
  if (typeof value === "string") return splitString ? value.split(/\s+/).filter((item) => item.length > 0) : [value];
  return [];
}

/**
 * Builds the principal from a verified token's claims: the tenant (a claim
 * or a fixed value), the subject (`sub`), the groups and the Context Hub
 * scopes (other scopes in the token are ignored). Refuses a token that lacks
 * a tenant or subject rather than guessing one.
 */
export function principalFromClaims(claims: Record<string, unknown>, mapping: ClaimMapping): ClaimsOutcome {
  let tenant: string;
  if ("fixed" in mapping.tenant) tenant = mapping.tenant.fixed;
  else {
    const value = readClaim(claims, mapping.tenant.claim);
    if (!isName(value))
      return {
        ok: false,
        description: `The access token has no usable "${mapping.tenant.claim}" claim naming the tenant (a non-empty string of at most ${maxName} characters)`,
      };
    tenant = value;
  }
  const subject = claims.sub;
  if (!isName(subject))
    return {
      ok: false,
      description: `The access token has no usable "sub" claim (a non-empty string of at most ${maxName} characters)`,
    };
  if (isReservedSubject(subject))
    return { ok: false, description: `The access token's ${reservedSubjectMessage('"sub" claim', subject)}` };
  const groups = [...new Set((readList(claims, mapping.groupsClaim, false) ?? []).filter(isName))];
  if (groups.length > maxGroups)
    return {
      ok: false,
      description: `The access token lists ${groups.length} groups in "${mapping.groupsClaim}"; at most ${maxGroups} are accepted`,
    };
  const granted =
    mapping.scopesClaim !== undefined
      ? readList(claims, mapping.scopesClaim, true)
      : (readList(claims, "scope", true) ?? readList(claims, "scp", true));
  return {
    ok: true,
    principal: {
      tenant,
      subject,
      groups,
      scopes: scopes.filter((scope) => (granted ?? []).filter(isScope).includes(scope)),
    },
  };
}
