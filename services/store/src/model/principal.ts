import { ContextHubError, isReservedSubject, reservedSubjectMessage } from "@context-hub/common";

export type Scope = "context:read" | "context:write" | "context:review" | "context:admin";

/** Who calls, as the gateway established it from a verified credential. */
export interface Principal {
  tenant: string;
  subject: string;
  groups: readonly string[];
  scopes: readonly string[];
}

const maxIdentifierLength = 256;
const maxGroups = 1000;

function isWellFormedIdentifier(value: string): boolean {
  return value.length > 0 && value.length <= maxIdentifierLength && !value.includes("\u0000");
}

/**
 * Checks that a call carries a usable principal holding `scope`. A missing or
 * malformed principal (no tenant, no subject) is UNAUTHENTICATED: the store
 * never guesses who is calling. A principal without the scope is
 * PERMISSION_DENIED. Scopes are independent: `context:admin` widens what a
 * reader sees but does not stand in for `context:read` or `context:write`.
 */
export function requirePrincipal(principal: Principal | undefined, scope: Scope): Principal {
  if (principal === undefined) throw new ContextHubError("UNAUTHENTICATED", "the call carries no principal");
  if (!isWellFormedIdentifier(principal.tenant))
    throw new ContextHubError("UNAUTHENTICATED", "the principal has no valid tenant");
  if (!isWellFormedIdentifier(principal.subject))
    throw new ContextHubError("UNAUTHENTICATED", "the principal has no valid subject");
  if (isReservedSubject(principal.subject))
    throw new ContextHubError("UNAUTHENTICATED", reservedSubjectMessage("the principal's subject", principal.subject));
  if (principal.groups.length > maxGroups || !principal.groups.every(isWellFormedIdentifier)) {
    throw new ContextHubError("UNAUTHENTICATED", "the principal's groups are malformed");
  }
  if (!principal.scopes.includes(scope)) {
    throw new ContextHubError("PERMISSION_DENIED", `this call needs the ${scope} scope`, {
      details: { required_scope: scope },
    });
  }
  return principal;
}

/** Whether the principal administers its tenant (sees every entry in it, and nothing beyond). */
export function isAdmin(principal: Principal): boolean {
  return principal.scopes.includes("context:admin");
}
