import { parseArgs } from "node:util";
import { randomUUID } from "node:crypto";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { bearerRequestInit, remoteOptions, resolveRemoteEndpoint } from "./remote-endpoint.js";

export const smokeUsage = `Usage: context-hub smoke --url <mcp url> [--insecure]

Checks a running Context Hub end to end: the MCP handshake, tools/list, and one
store → list → fetch round trip in a thread of its own. The API key comes from
CONTEXT_HUB_TOKEN (--token <api key> works too but shows in the process list).
Plain http:// is refused for a host other than loopback unless --insecure is
given. Exits 0 when everything answered as expected.
`;

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (result.isError) {
    const text = result.content.map((part) => (part.type === "text" ? part.text : "")).join("\n");
    throw new Error(`${name} failed: ${text}`);
  }
  return result.structuredContent ?? {};
}

/** `context-hub smoke`; returns the exit code. Used by the Helm chart's `helm test`. */
export async function runSmokeCommand(
  args: string[],
  env: NodeJS.ProcessEnv,
  out: (text: string) => void,
  err: (text: string) => void = out,
): Promise<number> {
  const { values } = parseArgs({ args, options: remoteOptions, strict: true });
  if (values.url === undefined) {
    out(smokeUsage);
    return 2;
  }
  const endpoint = resolveRemoteEndpoint(
    "smoke",
    { url: values.url, token: values.token, insecure: values.insecure },
    env,
    err,
  );
  if (!endpoint.ok) {
    err(`context-hub smoke: ${endpoint.message}\n`);
    return 2;
  }
  const client = new Client({ name: "context-hub-smoke", version: "1" });
  const transport = new StreamableHTTPClientTransport(endpoint.url, bearerRequestInit(endpoint.token));
  await client.connect(transport);
  try {
    const server = client.getServerVersion();
    out(`handshake ok: ${server?.name ?? "?"} ${server?.version ?? ""}\n`);
    const { tools } = await client.listTools();
    for (const needed of ["store_context", "search_context", "get_context_by_ids"]) {
      if (!tools.some((tool) => tool.name === needed)) throw new Error(`tools/list lacks ${needed}`);
    }
    out(`tools/list ok: ${tools.length} tools\n`);
    const thread = `smoke-${randomUUID()}`;
    const text = `Smoke test entry ${thread}: the write path, the store and the listing answer.`;
    const stored = await call(client, "store_context", {
      thread_id: thread,
      source: "agent",
      text,
      tags: ["smoke-test"],
    });
    const id = String(stored.context_id);
    const listed = (await call(client, "search_context", { thread_id: thread })) as { results?: { id: string }[] };
    if (!listed.results?.some((entry) => entry.id === id))
      throw new Error("the stored entry is missing from search_context");
    const fetched = (await call(client, "get_context_by_ids", { context_ids: [id] })) as {
      entries?: { text: string }[];
    };
    if (fetched.entries?.[0]?.text !== text) throw new Error("get_context_by_ids returned different text");
    out(`round trip ok: stored, listed and fetched ${id}\n`);
    return 0;
  } finally {
    await client.close();
  }
}
