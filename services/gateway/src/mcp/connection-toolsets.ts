// The tools of one MCP connection: the deployment's, narrowed by the toolsets the client asks for on /mcp.
import type { Scope } from "../principal.js";
import type { ToolDefinition } from "./tool-definition.js";
import { narrowToolsets, toolsIn, type ToolsetName } from "./tools/toolsets.js";

/** The query parameter on the MCP URL (`/mcp?toolsets=core,search`) by which a client narrows its toolsets. */
export const toolsetsQueryParameter = "toolsets";
/** The header by which a client (or a proxy in front of it) narrows its toolsets. */
export const toolsetsHeader = "x-context-hub-toolsets";

/** What one connection may see and call: its tools, and the scope each one needs. */
export interface ConnectionTools {
  tools: readonly ToolDefinition[];
  toolScopes: ReadonlyMap<string, Scope>;
}

export type ConnectionToolsChoice = ({ ok: true } & ConnectionTools) | { ok: false; message: string };

/** Where a client names its toolsets: each one given narrows the connection (both given: the tools in both). */
export interface ToolsetRequest {
  /** `request.query.toolsets` as express parsed it: a string, a list of strings for a repeated parameter, or absent. */
  query: unknown;
  header: string | undefined;
}

/**
 * Resolves a request's toolsets against the ones the operator offers. The
 * tools of each distinct choice are computed once and kept (there are at
 * most 2^8 choices), since this runs on every POST to /mcp.
 */
export function createConnectionToolsets(
  offered: readonly ToolsetName[],
  tools: readonly ToolDefinition[],
): (request: ToolsetRequest) => ConnectionToolsChoice {
  const whole: ConnectionToolsChoice = { ok: true, tools, toolScopes: scopesOf(tools) };
  const chosen = new Map<string, ConnectionToolsChoice>();
  const choose = (names: readonly ToolsetName[]): ConnectionToolsChoice => {
    const key = names.join(",");
    let choice = chosen.get(key);
    if (choice === undefined) {
      const narrowed = toolsIn(tools, names);
      choice = { ok: true, tools: narrowed, toolScopes: scopesOf(narrowed) };
      chosen.set(key, choice);
    }
    return choice;
  };
  return ({ query, header }) => {
    if (query === undefined && header === undefined) return whole;
    let names: readonly ToolsetName[] = offered;
    for (const [source, raw] of [
      [`the ${toolsetsQueryParameter} parameter`, queryText(query)],
      [`the X-Context-Hub-Toolsets header`, header],
    ] as const) {
      if (raw === undefined) continue;
      if (raw === null)
        return { ok: false, message: `Bad Request: ${source} must be a comma-separated list of toolsets` };
      const choice = narrowToolsets(offered, raw);
      if (!choice.ok) return { ok: false, message: `Bad Request: ${source}: ${choice.message}` };
      names = names.filter((name) => choice.names.includes(name));
    }
    if (names.length === 0) {
      return {
        ok: false,
        message: `Bad Request: the ${toolsetsQueryParameter} parameter and the X-Context-Hub-Toolsets header name no toolset in common`,
      };
    }
    return choose(names);
  };
}

/** The query parameter's text (a repeated parameter joined), undefined when absent, null when it is not text. */
function queryText(query: unknown): string | undefined | null {
  if (query === undefined) return undefined;
  if (typeof query === "string") return query;
  if (Array.isArray(query) && query.every((item) => typeof item === "string")) return query.join(",");
  return null;
}

function scopesOf(tools: readonly ToolDefinition[]): ReadonlyMap<string, Scope> {
  return new Map(tools.map((tool) => [tool.name, tool.scope]));
}
