/** What the gateway reads of a JSON-RPC message before any MCP processing (authorisation, metering). */

/** A JSON-RPC `tools/call` message's tool name, if the message is one. */
export function calledTool(message: unknown): string | undefined {
  if (message === null || typeof message !== "object") return undefined;
  const { method, params } = message as { method?: unknown; params?: unknown };
  if (method !== "tools/call" || params === null || typeof params !== "object") return undefined;
  const name = (params as { name?: unknown }).name;
  return typeof name === "string" ? name : undefined;
}
