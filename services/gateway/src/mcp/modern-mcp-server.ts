// The per-request MCP server for protocol revision 2026-07-28, built with the official SDK v2 from the same tools as the 2025 one.
import { McpServer, type CallToolResult, type StandardSchemaWithJSON } from "@modelcontextprotocol/server";
import { boundTools, defaultInstructions, type McpServerOptions } from "./create-mcp-server.js";

/** The revision this server speaks without a handshake. */
export const modernProtocolVersion = "2026-07-28";

/**
 * How long a client may reuse `tools/list` and `server/discover` results
 * (the revision's `ttlMs`). The list depends only on the deployment's
 * enabled tools and the caller's scopes, and changes only when the gateway is
 * redeployed; five minutes bounds how long a client keeps a list after a
 * rolling upgrade.
 */
export const listTtlMs = 300_000;

/**
 * An MCP server for one 2026-07-28 request, with the tools the caller's
 * scopes allow bound to the caller's principal (boundTools, shared with the
 * 2025 server). Lists are cacheable per caller only (`cacheScope: private`):
 * two callers with different scopes see different tools.
 */
export function createModernMcpServer(options: McpServerOptions): McpServer {
  const cacheHint = { ttlMs: listTtlMs, cacheScope: "private" as const };
  const server = new McpServer(
    { name: "context-hub", title: "Context Hub", version: options.version },
    {
      instructions: options.instructions ?? defaultInstructions,
      // Tools never change while a gateway runs, so nothing is announced on a subscriptions/listen stream.
      capabilities: { tools: { listChanged: false } },
      cacheHints: { "tools/list": cacheHint, "server/discover": cacheHint },
    },
  );
  for (const tool of boundTools(options)) {
    // Zod 4 schemas are Standard Schemas with a JSON Schema face, which is what the v2 SDK registers.
    const config = {
      ...tool.config,
      inputSchema: tool.config.inputSchema as unknown as StandardSchemaWithJSON,
      outputSchema: tool.config.outputSchema as unknown as StandardSchemaWithJSON,
    };
    server.registerTool(tool.name, config, (async (args: unknown) => (await tool.run(args)) as CallToolResult) as never);
  }
  return server;
}
