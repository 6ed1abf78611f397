import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

/** An MCP SDK client connected over real HTTP; dispose with close(). */
export async function connectMcpClient(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: "context-hub-tests", version: "0.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

/** Calls a tool and returns its result, typed as a plain tool result. */
export async function callTool(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** Calls a tool that must succeed and returns its structured content. */
export async function callOk<T = Record<string, unknown>>(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<T> {
  const result = await callTool(client, name, args);
  if (result.isError) throw new Error(`${name} failed: ${textOf(result)}`);
  return result.structuredContent as T;
}

export function textOf(result: CallToolResult): string {
  return result.content.map((part) => (part.type === "text" ? part.text : `[${part.type}]`)).join("\n");
}

/** The first line of a failed call's text, "<CODE>: <message>"; throws if the call did not fail. */
export function failureLine(result: CallToolResult): string {
  if (result.isError !== true)
    throw new Error(`expected the call to fail, but it returned ${JSON.stringify(result.structuredContent)}`);
  return textOf(result).split("\n")[0] ?? "";
}

/** The fields of an entry, as get_context_by_ids shows it, that write tests read. */
export interface EntryView {
  id: string;
  version: number;
  text: string;
  summary: string;
  content_hash: string;
  metadata: Record<string, unknown>;
  tags: string[];
  updated_at: string | null;
  chunk_count: number;
  embedding_model: string;
  node_summaries: { node_id: string; heading: string; level: number; start: number; end: number; summary: string }[];
}

/** Fetches one entry the caller can see by id; throws when it is missing. */
export async function fetchEntry(client: Client, id: string): Promise<EntryView> {
  const { entries } = await callOk<{ entries: EntryView[] }>(client, "get_context_by_ids", { context_ids: [id] });
  if (entries[0] === undefined) throw new Error(`entry ${id} is missing`);
  return entries[0];
}

/** The JSON-RPC error a call fails with (its data only when it has some); fails the test when the call succeeds. */
export async function rpcError(call: Promise<unknown>): Promise<{ code: number; message: string; data?: unknown }> {
  try {
    await call;
  } catch (error) {
    const { code, message, data } = error as { code: number; message: string; data?: unknown };
    return { code, message, ...(data === undefined ? {} : { data }) };
  }
  assert.fail("expected a JSON-RPC error");
}
