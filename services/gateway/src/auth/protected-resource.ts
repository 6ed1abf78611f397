import { scopes } from "../principal.js";

const wellKnown = "/.well-known/oauth-protected-resource";

/** The gateway as an OAuth protected resource (RFC 9728). */
export interface ProtectedResource {
  /** Where the metadata is served: the root form and the path-suffixed forms for the public and the local MCP path. */
  metadataPaths: string[];
  /** The URL challenges point clients to (`resource_metadata`). */
  metadataUrl: string;
  document: {
    resource: string;
    authorization_servers: string[];
    scopes_supported: string[];
    bearer_methods_supported: string[];
    resource_name: string;
  };
}

/**
 * Describes the MCP endpoint at `publicUrl` (the URL clients use, which is
 * also the default token audience) as protected by `issuer`.
 */
export function describeProtectedResource(publicUrl: string, issuer: string, mcpPath = "/mcp"): ProtectedResource {
  const url = new URL(publicUrl);
  const resourcePath = url.pathname === "/" ? "" : url.pathname.replace(/\/$/, "");
  return {
    metadataPaths: [...new Set([wellKnown, `${wellKnown}${resourcePath}`, `${wellKnown}${mcpPath}`])],
    metadataUrl: `${url.origin}${wellKnown}${resourcePath}`,
    document: {
      resource: publicUrl,
      authorization_servers: [issuer],
      scopes_supported: [...scopes],
      bearer_methods_supported: ["header"],
      resource_name: "Context Hub",
    },
  };
}
