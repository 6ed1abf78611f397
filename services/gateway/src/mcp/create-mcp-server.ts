import type { z } from "zod";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import {
  CompleteRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type CallToolResult,
  type ToolAnnotations,
} from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { counter, histogram, type Logger, withSpan } from "@context-hub/common";
import { gatewayClientsFor } from "../clients/gateway-clients.js";
import type { Peers } from "../clients/peers.js";
import type { Principal } from "../principal.js";
import { timeStage, type WritePath } from "../write-path.js";
import type { ToolContext, ToolDefinition } from "./tool-definition.js";
import { toolFailure, toolSuccess } from "./tool-result.js";
import { instructionsFor } from "./instructions.js";
import { completionHandlersFor } from "./completions.js";
import { promptHandlersFor } from "./prompts.js";
import { subscriptionHandlersFor } from "./resource-subscriptions.js";
import { resourceHandlersFor, type StaticResource } from "./resources.js";

const toolCalls = counter("contexthub_tool_calls_total", "MCP tool calls by tool and outcome.", ["tool", "outcome"]);

/** Counts a tool call refused for the caller's rate budget before it reached a server. */
export function countRateLimitedCall(tool: string): void {
  toolCalls.inc({ tool, outcome: "rate_limited" });
}
const toolDuration = histogram("contexthub_tool_duration_seconds", "MCP tool call duration by tool, in seconds.", [
  "tool",
]);

export interface McpServerOptions {
  principal: Principal;
  peers: Peers;
  writePath: WritePath;
  /** The tools this deployment offers (all of them less CONTEXT_HUB_DISABLED_TOOLS); the caller's scopes narrow them further. */
  tools: readonly ToolDefinition[];
  logger: Logger;
  version: string;
  /** MCP `instructions`; when absent, the built-in text for the tools the caller is offered (instructionsFor). */
  instructions?: string | undefined;
  /** Fixed documents every reader gets as resources (the REST API's OpenAPI document). */
  documents?: readonly StaticResource[];
  /**
   * The protocol revision the request speaks, over stateless HTTP its
   * `MCP-Protocol-Version` header (2025-03-26 when absent, as the
   * specification has it); undefined on a connection that negotiated its own
   * (stdio), which is served as the newest.
   */
  protocolVersion?: string | undefined;
  /**
   * The 2025 session a request over HTTP belongs to (`id` undefined when the
   * client sent none): its resources/subscribe and resources/unsubscribe are
   * kept under it, and GET /mcp streams their updates. Absent on stdio and
   * for 2026-07-28 (which has subscriptions/listen instead): then no
   * subscribe is offered.
   */
  session?: { id: string | undefined } | undefined;
}

/**
 * One JSON Schema validator for every per-request server. Left to itself the
 * SDK builds a new Ajv instance for each server, which cost about 0.5 ms of
 * CPU per call (and garbage) for a validator this server never uses: it
 * validates elicitation replies, and Context Hub does not elicit.
 */
const sharedSchemaValidator = new AjvJsonSchemaValidator();

/** A tool's registration, the same for both protocol generations: what `tools/list` shows of it and the handler bound to the caller. */
export interface BoundTool {
  name: string;
  config: {
    title: string;
    description: string;
    inputSchema: z.ZodType;
    outputSchema: z.ZodObject;
    annotations: ToolAnnotations;
    _meta?: Record<string, unknown>;
  };
  run(args: unknown): Promise<CallToolResult>;
}

/**
 * The tools the caller's scopes allow, every one bound to the caller's
 * principal: counted, timed and traced, with domain errors turned into tool
 * results. Both the 2025 server (createMcpServer) and the 2026-07-28 one
 * (modern-mcp-server.ts) register exactly these, so access control and
 * results cannot differ between the generations.
 */
export function boundTools(options: McpServerOptions): BoundTool[] {
  const context: ToolContext = {
    principal: options.principal,
    clients: gatewayClientsFor(options.peers),
    peers: options.peers,
    writePath: options.writePath,
  };
  return options.tools
    .filter((tool) => options.principal.scopes.includes(tool.scope))
    .map((tool) => ({
      name: tool.name,
      config: {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.inputSchema,
        outputSchema: tool.outputSchema,
        annotations: { title: tool.title, ...tool.annotations },
        ...(tool._meta === undefined ? {} : { _meta: tool._meta }),
      },
      async run(args: unknown) {
        try {
          return toolSuccess(await runTool(tool, args, context));
        } catch (error) {
          return toolFailure(error, options.logger);
        }
      },
    }));
}

/**
 * Runs one tool for the caller in `context` with arguments its input schema
 * has already accepted: counted, timed and traced the same whichever face of
 * the gateway (MCP or REST) called it. Domain errors are thrown as they are.
 */
export async function runTool(
  tool: ToolDefinition,
  args: unknown,
  context: ToolContext,
): Promise<Record<string, unknown>> {
  const stop = toolDuration.startTimer({ tool: tool.name });
  try {
    const call = () => tool.handler(args as never, context);
    const structured = await withSpan(
      `tool ${tool.name}`,
      { "contexthub.tool": tool.name, "contexthub.tenant": context.principal.tenant },
      () => (tool.write === true ? timeStage("total", call) : call()),
    );
    toolCalls.inc({ tool: tool.name, outcome: "ok" });
    return structured;
  } catch (error) {
    toolCalls.inc({ tool: tool.name, outcome: "error" });
    throw error;
  } finally {
    stop();
  }
}

/**
 * An MCP server for one request of a 2025 revision (2024-11-05 to
 * 2025-11-25), with the tools the caller's scopes allow and, for a caller
 * who may read, the prompt entries it may see as MCP prompts and every entry
 * it may see as an MCP resource. The request's
 * messages have already been metered against the caller's rate budgets (see
 * metering.ts).
 */
export function createMcpServer(options: McpServerOptions): McpServer {
  const tools = boundTools(options);
  const prompts = promptHandlersFor(options.principal, options.peers, options.logger, options.protocolVersion);
  const resources = resourceHandlersFor(options.principal, options.peers, options.logger, options.documents);
  const completions = completionHandlersFor(options.principal, options.peers, options.logger);
  const subscriptions =
    resources === undefined || options.session === undefined
      ? undefined
      : subscriptionHandlersFor(options.principal, options.peers, options.logger, options.session.id);
  const server = new McpServer(
    { name: "context-hub", title: "Context Hub", version: options.version },
    {
      instructions: options.instructions ?? instructionsFor(tools.map((tool) => tool.name)),
      capabilities: {
        tools: {},
        ...(prompts === undefined ? {} : { prompts: {} }),
        ...(resources === undefined ? {} : { resources: {} }),
        ...(completions === undefined ? {} : { completions: {} }),
      },
      jsonSchemaValidator: sharedSchemaValidator,
    },
  );
  // The SDK marks a capability given above listChanged: true; prompts and resources are entries that do change, but
  // their lists are not announced (a session's stream carries the updates of the resources it subscribes to).
  const unannounced = { listChanged: false };
  server.server.registerCapabilities({
    ...(prompts === undefined ? {} : { prompts: unannounced }),
    ...(resources === undefined
      ? {}
      : { resources: subscriptions === undefined ? unannounced : { ...unannounced, subscribe: true } }),
  });
  if (prompts !== undefined) {
    // The low-level handlers, not registerPrompt: the prompts are the caller's entries, read per request.
    server.server.setRequestHandler(ListPromptsRequestSchema, (request) => prompts.list(request.params?.cursor));
    server.server.setRequestHandler(GetPromptRequestSchema, (request) =>
      prompts.get(request.params.name, request.params.arguments),
    );
  }
  if (resources !== undefined) {
    server.server.setRequestHandler(ListResourcesRequestSchema, (request) => resources.list(request.params?.cursor));
    server.server.setRequestHandler(ListResourceTemplatesRequestSchema, () => resources.listTemplates());
    server.server.setRequestHandler(ReadResourceRequestSchema, (request) => resources.read(request.params.uri));
  }
  if (subscriptions !== undefined) {
    server.server.setRequestHandler(SubscribeRequestSchema, (request) => subscriptions.subscribe(request.params.uri));
    server.server.setRequestHandler(UnsubscribeRequestSchema, (request) =>
      subscriptions.unsubscribe(request.params.uri),
    );
  }
  if (completions !== undefined)
    server.server.setRequestHandler(CompleteRequestSchema, (request) =>
      completions.complete(request.params.ref, request.params.argument, request.params.context?.arguments),
    );
  for (const tool of tools) {
    server.registerTool(
      tool.name,
      {
        ...tool.config,
        inputSchema: tool.config.inputSchema as never,
        outputSchema: tool.config.outputSchema as never,
      },
      ((args: unknown) => tool.run(args)) as never,
    );
  }
  return server;
}
