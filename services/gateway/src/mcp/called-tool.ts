import type { ToolDefinition } from "./tool-definition.js";

/** A JSON-RPC `tools/call` message's tool name, if the message is one. */
export function calledTool(message: unknown): string | undefined {
  if (message === null || typeof message !== "object") return undefined;
  const { method, params } = message as { method?: unknown; params?: unknown };
  if (method !== "tools/call" || params === null || typeof params !== "object") return undefined;
  const name = (params as { name?: unknown }).name;
  return typeof name === "string" ? name : undefined;
}

/**
 * The tools a request's MCP server has to register: only the one a lone
 * `tools/call` names, when the deployment has it, since each registration
 * costs the per-request server its schemas and validation; every tool for
 * anything else (tools/list, a batch, an unknown name), so the SDK answers
 * those exactly as it does with all of them registered.
 */
export function toolsNeededFor(body: unknown, tools: readonly ToolDefinition[]): readonly ToolDefinition[] {
  const name = Array.isArray(body) ? undefined : calledTool(body);
  if (name === undefined) return tools;
  const called = tools.filter((tool) => tool.name === name);
  return called.length === 0 ? tools : called;
}
