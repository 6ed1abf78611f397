import { parseArgs } from "node:util";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
// The SDK v2 client transport: it speaks both protocol eras, deriving each 2026-07-28 request's MCP-Protocol-Version,
// Mcp-Method and Mcp-Name headers from the message's own envelope, and a 2025 session's version from initialize.
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { isJSONRPCRequest, isJSONRPCResultResponse, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { bearerRequestInit, remoteOptions, resolveRemoteEndpoint } from "./remote-endpoint.js";

export const bridgeUsage = `Usage: context-hub bridge --url <mcp url> [--insecure]

Serves MCP on stdin/stdout and forwards every message to a remote Context Hub
over Streamable HTTP, for clients that only launch local servers (Claude
Desktop), at revision 2026-07-28 (no handshake) or, after \`initialize\`, the
2025 revisions. The credential (an API key, chk_…) comes from CONTEXT_HUB_TOKEN and
is sent as Authorization: Bearer; --token <credential> works too but shows in
the process list. Plain http:// is refused for a host other than loopback
unless --insecure is given. Diagnostics go to stderr; stdout carries only MCP
messages.
`;

/** The two transports a bridge joins. */
export interface BridgeEnds {
  local: Transport;
  remote: StreamableHTTPClientTransport;
}

/**
 * Forwards JSON-RPC messages both ways between a local transport (stdio) and
 * a remote Streamable HTTP endpoint. A request the remote cannot be asked
 * (refused credential, unreachable server) is answered locally with a
 * JSON-RPC error carrying the reason, so the client sees why instead of
 * waiting. The protocol version the server chose at initialize is sent on
 * every later request of a 2025 session, as MCP's HTTP transport requires;
 * a 2026-07-28 request carries its own (the remote transport sets its
 * headers from the message).
 *
 * Resolves when the local side closes.
 */
export async function runBridge({ local, remote }: BridgeEnds, log: (text: string) => void): Promise<void> {
  const initializeIds = new Set<string | number>();
  const closed = new Promise<void>((resolve) => {
    local.onclose = () => resolve();
  });

  remote.onmessage = (message) => {
    if (isJSONRPCResultResponse(message) && initializeIds.delete(message.id)) {
      const version = (message.result as { protocolVersion?: unknown }).protocolVersion;
      if (typeof version === "string") remote.setProtocolVersion(version);
    }
    local.send(message).catch((error: unknown) => log(`cannot write to the client: ${String(error)}`));
  };
  remote.onerror = (error) => log(`remote: ${error.message}`);
  local.onerror = (error) => log(`local: ${error.message}`);

  local.onmessage = (message: JSONRPCMessage) => {
    if (isJSONRPCRequest(message) && message.method === "initialize") initializeIds.add(message.id);
    remote.send(message).catch((error: unknown) => {
      const reason = error instanceof Error ? error.message : String(error);
      if (!isJSONRPCRequest(message)) {
        log(`could not forward ${"method" in message ? message.method : "a response"}: ${reason}`);
        return;
      }
      initializeIds.delete(message.id);
      local
        .send({
          jsonrpc: "2.0",
          id: message.id,
          error: {
            code: -32000,
            message: `context-hub bridge: the remote server refused or did not answer: ${reason}`,
          },
        })
        .catch(() => undefined);
    });
  };

  await remote.start();
  await local.start();
  await closed;
  await remote.close();
}

/** `context-hub bridge`; returns the exit code once stdin closes. */
export async function runBridgeCommand(
  args: string[],
  env: NodeJS.ProcessEnv,
  err: (text: string) => void,
): Promise<number> {
  const { values } = parseArgs({ args, options: remoteOptions, strict: true });
  if (values.url === undefined) {
    err(bridgeUsage);
    return 2;
  }
  const endpoint = resolveRemoteEndpoint(
    "bridge",
    { url: values.url, token: values.token, insecure: values.insecure },
    env,
    err,
  );
  if (!endpoint.ok) {
    err(`context-hub bridge: ${endpoint.message}\n`);
    return 2;
  }
  const remote = new StreamableHTTPClientTransport(endpoint.url, bearerRequestInit(endpoint.token));
  const local = new StdioServerTransport();
  // The stdio transport does not notice the client going away; stdin ending is that signal.
  process.stdin.once("end", () => void local.close());
  await runBridge({ local, remote }, (text) => err(`context-hub bridge: ${text}\n`));
  return 0;
}
