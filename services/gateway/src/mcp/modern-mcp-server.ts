// The per-request MCP server for protocol revision 2026-07-28, built with the official SDK v2 from the same tools as the 2025 one.
import type { z } from "zod";
import { McpServer, type CallToolResult, type StandardSchemaWithJSON } from "@modelcontextprotocol/server";
import { boundTools, type McpServerOptions } from "./create-mcp-server.js";
import { instructionsFor } from "./instructions.js";
import { completionHandlersFor } from "./completions.js";
import { promptHandlersFor } from "./prompts.js";
import { resourceHandlersFor } from "./resources.js";

/**
 * How long a client may reuse `tools/list` and `server/discover` results
 * (the revision's `ttlMs`). The list depends only on the deployment's
 * enabled tools and the caller's scopes, and changes only when the gateway is
 * redeployed; five minutes bounds how long a client keeps a list after a
 * rolling upgrade.
 */
export const listTtlMs = 300_000;

/**
 * How long a client may reuse `prompts/list` and `resources/list` results.
 * These list entries, which callers write at any time: ten seconds lets a
 * client that lists on every turn of a conversation reuse the page, while a
 * prompt or entry written meanwhile shows up soon after. A read of one
 * resource carries no lifetime (the revision's default: not reused), so an
 * update is seen at once.
 */
export const entryListTtlMs = 10_000;

/**
 * An MCP server for one 2026-07-28 request, with the tools the caller's
 * scopes allow bound to the caller's principal (boundTools, shared with the
 * 2025 server). Lists are cacheable per caller only (`cacheScope: private`):
 * two callers with different scopes see different tools.
 */
export function createModernMcpServer(options: McpServerOptions): McpServer {
  const cacheHint = { ttlMs: listTtlMs, cacheScope: "private" as const };
  const entryListHint = { ttlMs: entryListTtlMs, cacheScope: "private" as const };
  const tools = boundTools(options);
  const prompts = promptHandlersFor(options.principal, options.peers, options.logger);
  const resources = resourceHandlersFor(options.principal, options.peers, options.logger, options.documents);
  const completions = completionHandlersFor(options.principal, options.peers, options.logger);
  const server = new McpServer(
    { name: "context-hub", title: "Context Hub", version: options.version },
    {
      instructions: options.instructions ?? instructionsFor(tools.map((tool) => tool.name)),
      // Tools never change while a gateway runs, so nothing is announced on a subscriptions/listen stream. Prompts
      // and resources are entries and do change, but their lists are not announced; a listen stream carries the
      // updates of the resources it names (subscribe).
      capabilities: {
        tools: { listChanged: false },
        ...(prompts === undefined ? {} : { prompts: { listChanged: false } }),
        ...(resources === undefined ? {} : { resources: { listChanged: false, subscribe: true } }),
        ...(completions === undefined ? {} : { completions: {} }),
      },
      cacheHints: {
        "tools/list": cacheHint,
        "server/discover": cacheHint,
        "resources/templates/list": cacheHint,
        "prompts/list": entryListHint,
        "resources/list": entryListHint,
      },
    },
  );
  if (prompts !== undefined) {
    server.server.setRequestHandler("prompts/list", (request) => prompts.list(request.params?.cursor));
    server.server.setRequestHandler("prompts/get", (request) =>
      prompts.get(request.params.name, request.params.arguments),
    );
  }
  if (resources !== undefined) {
    server.server.setRequestHandler("resources/list", (request) => resources.list(request.params?.cursor));
    server.server.setRequestHandler("resources/templates/list", () => resources.listTemplates());
    server.server.setRequestHandler("resources/read", (request) => resources.read(request.params.uri));
  }
  if (completions !== undefined)
    server.server.setRequestHandler("completion/complete", (request) =>
      completions.complete(request.params.ref, request.params.argument, request.params.context?.arguments),
    );
  for (const tool of tools) {
    const config = {
      ...tool.config,
      inputSchema: withCachedJsonSchema(tool.config.inputSchema),
      outputSchema: withCachedJsonSchema(tool.config.outputSchema),
    };
    server.registerTool(
      tool.name,
      config,
      (async (args: unknown) => (await tool.run(args)) as CallToolResult) as never,
    );
  }
  return server;
}

type JsonSchemaOptions = Parameters<StandardSchemaWithJSON["~standard"]["jsonSchema"]["input"]>[0];

const cachedSchemas = new WeakMap<z.ZodType, StandardSchemaWithJSON>();

/**
 * A tool schema as the SDK v2 takes it (a Standard Schema with a JSON Schema
 * face; zod 4 schemas are both), with the JSON Schema conversions done once
 * per process instead of once per request: the SDK converts a tool's output
 * schema on every `tools/call` and both schemas on every `tools/list`, for a
 * server built anew for each POST. Validation is zod's own.
 */
function withCachedJsonSchema(schema: z.ZodType): StandardSchemaWithJSON {
  const known = cachedSchemas.get(schema);
  if (known !== undefined) return known;
  const standard = (schema as unknown as StandardSchemaWithJSON)["~standard"];
  const memo = (io: "input" | "output") => {
    const byOptions = new Map<string, Record<string, unknown>>();
    return (options: JsonSchemaOptions) => {
      const key = JSON.stringify(options);
      let converted = byOptions.get(key);
      if (converted === undefined) {
        // Frozen: the one conversion is shared by every request's server, so none may change it.
        converted = deepFreeze(standard.jsonSchema[io](options));
        byOptions.set(key, converted);
      }
      return converted;
    };
  };
  const wrapped = {
    "~standard": {
      ...standard,
      validate: standard.validate.bind(standard),
      jsonSchema: { input: memo("input"), output: memo("output") },
    },
  } as StandardSchemaWithJSON;
  cachedSchemas.set(schema, wrapped);
  return wrapped;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
