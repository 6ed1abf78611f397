import type { Principal, Scope } from "../principal.js";
import { calledTool } from "../json-rpc-messages.js";
import type { AuthFailure } from "./authenticate.js";

const describeGranted = (principal: Principal) => (principal.scopes.length === 0 ? "none" : principal.scopes.join(" "));

/**
 * The HTTP-level scope decision for an authenticated request, made before
 * any MCP processing (RFC 6750 §3.1 `insufficient_scope`, which lets an
 * OAuth client step up):
 *
 * - a credential with none of the Context Hub scopes can do nothing here;
 * - a `tools/call` of a tool this deployment offers, whose scope the caller
 *   lacks, is refused with the scope it needs — not answered "tool not
 *   found", since the tool exists and the caller could be granted it.
 *
 * Tools outside the caller's scopes are also left out of `tools/list`;
 * unknown and disabled tools fall through to MCP's "not found".
 */
export function scopeRefusal(
  body: unknown,
  principal: Principal,
  toolScopes: ReadonlyMap<string, Scope>,
): AuthFailure | undefined {
  if (principal.scopes.length === 0) {
    return {
      status: 403,
      error: "insufficient_scope",
      scope: "context:read",
      description: `The credential grants none of the Context Hub scopes; it needs at least context:read`,
    };
  }
  for (const message of Array.isArray(body) ? body : [body]) {
    const tool = calledTool(message);
    const needed = tool === undefined ? undefined : toolScopes.get(tool);
    if (needed !== undefined && !principal.scopes.includes(needed)) {
      return {
        status: 403,
        error: "insufficient_scope",
        scope: needed,
        description: `${tool} needs scope ${needed}; this credential grants ${describeGranted(principal)}`,
      };
    }
  }
  return undefined;
}
