/** Scopes gate tool families. */
export const scopes = ["context:read", "context:write", "context:review", "context:admin"] as const;
export type Scope = (typeof scopes)[number];

/** Who is calling, built only from a verified credential (or the fixed local principal when auth is off). */
export interface Principal {
  tenant: string;
  subject: string;
  groups: string[];
  scopes: Scope[];
}

/** The one principal of auth-off mode: it owns everything stored through this gateway. */
export function createLocalPrincipal(tenant: string, subject: string): Principal {
  return { tenant, subject, groups: [], scopes: ["context:read", "context:write", "context:review", "context:admin"] };
}
