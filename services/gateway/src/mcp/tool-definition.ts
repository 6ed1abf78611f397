import type { z } from "zod";
import type { ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import type { GatewayClients } from "../clients/gateway-clients.js";
import type { Peers } from "../clients/peers.js";
import type { Principal, Scope } from "../principal.js";
import type { WritePath } from "../write-path.js";

/** What a tool handler can use: the verified caller and the gateway's collaborators. */
export interface ToolContext {
  principal: Principal;
  /** The domain clients tools call. */
  clients: GatewayClients;
  /** The raw connections, for resolving idempotency keys and for describing the peers. */
  peers: Peers;
  writePath: WritePath;
}

export type ToolAnnotationSet = Required<
  Pick<ToolAnnotations, "readOnlyHint" | "destructiveHint" | "idempotentHint" | "openWorldHint">
>;

export interface ToolDefinition<I extends z.ZodType = z.ZodType> {
  name: string;
  title: string;
  /** Written for a model: when to use it, what it returns, what to do next. */
  description: string;
  inputSchema: I;
  outputSchema: z.ZodObject;
  annotations: ToolAnnotationSet;
  /** Scope the caller needs; tools outside the caller's scopes are not listed. */
  scope: Scope;
  /** Stores or changes entries through the write path: the whole call is timed as the write's `total` stage. */
  write?: true;
  /** What `tools/list` shows in the tool's `_meta` (an MCP App view for its results, when MCP Apps are on); none when absent. */
  _meta?: Record<string, unknown>;
  handler(args: z.infer<I>, context: ToolContext): Promise<Record<string, unknown>>;
}

export function defineTool<I extends z.ZodType>(definition: ToolDefinition<I>): ToolDefinition {
  return definition as unknown as ToolDefinition;
}

export const readOnlyTool: ToolAnnotationSet = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};
/** Adds data; a retry without an idempotency key may add it twice (or fold it). */
export const additiveTool: ToolAnnotationSet = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false,
};
/** Changes or removes what exists. */
export const destructiveTool: ToolAnnotationSet = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: false,
};
