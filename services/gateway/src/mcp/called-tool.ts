import { calledTool } from "../json-rpc-messages.js";
import type { ToolDefinition } from "./tool-definition.js";

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
