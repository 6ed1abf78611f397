// MCP on stdin/stdout for both protocol generations: the opening message picks the revision, then one server serves it.
import type { McpServer as ModernMcpServer } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { createMcpServer, type McpServerOptions } from "./create-mcp-server.js";
import { createModernMcpServer } from "./modern-mcp-server.js";

/** One stdio connection; it ends by itself when stdin closes. */
export interface StdioConnection {
  /** Ends the connection: closes its server and the transport. */
  close(): Promise<void>;
}

/**
 * Serves MCP on this process's stdin/stdout through the SDK v2's `serveStdio`,
 * which decides the connection's era from its opening message, as the
 * 2026-07-28 stdio binding prescribes: a request carrying the `_meta`
 * protocol version claim (or a `server/discover` probe) pins the connection to
 * 2026-07-28, an `initialize` (or any claim-less message) to the 2025
 * revisions. Each era gets the same server as on HTTP: the SDK v2 one for
 * 2026-07-28, the SDK 1.x one for 2025 clients, so those see exactly what they
 * saw before 2026-07-28 existed. Both register boundTools for the same
 * principal, so tools and access are the same whichever revision a client
 * speaks.
 */
export function serveBothRevisionsOnStdio(options: McpServerOptions): StdioConnection {
  return serveStdio(
    ({ era }) =>
      era === "modern"
        ? createModernMcpServer(options)
        : // serveStdio only connects a 2025-era server to its per-connection channel and closes it, the Transport
          // contract the 1.x server shares; the v2 type names only its own class.
          (createMcpServer(options) as unknown as ModernMcpServer),
    {
      legacy: "serve",
      onerror: (error) => options.logger.debug({ err: error }, "stdio MCP message refused or failed"),
    },
  );
}
