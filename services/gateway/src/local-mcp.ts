import type { Logger } from "@context-hub/common";
import { createEarlyGeneration } from "./clients/early-generation.js";
import { createPeers } from "./clients/peers.js";
import type { GatewayConfig } from "./config.js";
import { checkEmbeddingSpaceBeforeServing } from "./embedding-space-check.js";
import { gatewayVersion } from "./gateway-version.js";
import { searchResultsAppResource, withSearchResultsView } from "./mcp-apps.js";
import { serveBothRevisionsOnStdio, type StdioConnection } from "./mcp/stdio-revisions.js";
import { enabledTools } from "./mcp/tools/index.js";
import { toolsIn } from "./mcp/tools/toolsets.js";
import { createLocalPrincipal } from "./principal.js";
import { createWritePath } from "./write-path.js";

/** An MCP server for the one local user, served on this process's stdin/stdout. */
export interface LocalMcp {
  /**
   * Starts serving MCP on stdin/stdout: a client opening with `initialize`
   * gets the 2025 revisions, one opening with a 2026-07-28 request (no
   * handshake) gets that revision. The connection ends when stdin closes or
   * on close().
   */
  serveStdio(): StdioConnection;
  /** Stops the server and closes its connections to the other services. */
  close(): Promise<void>;
}

/**
 * The gateway without its HTTP listener, for `context-hub stdio`: one
 * long-lived MCP server bound to the local principal (the process's user is
 * the only caller, as with auth off on loopback), with the same tools, write
 * path and embedding space check as the HTTP gateway. Rate budgets do not
 * apply: there is no one else to protect from the caller.
 */
export async function openLocalMcp(config: GatewayConfig, logger: Logger): Promise<LocalMcp> {
  const tools = toolsIn(enabledTools(config.disabledTools), config.toolsets);
  const peers = createPeers(config);
  // A mismatch between the embedder's model and the stored vectors refuses to start, as the HTTP gateway does.
  const spaceCheck = await checkEmbeddingSpaceBeforeServing(config, peers, logger);
  const earlyGeneration = createEarlyGeneration({
    setting: config.earlyGeneration,
    peers,
    logger,
    refreshMs: 60_000,
    retryMs: 2_000,
    callTimeoutMs: 5_000,
  });
  const writePath = createWritePath({
    peers,
    sectionSummaryTimeoutMs: config.timeouts.sectionSummaryMs,
    earlyGeneration: earlyGeneration.enabled,
  });
  const principal = createLocalPrincipal(config.auth.localPrincipal.tenant, config.auth.localPrincipal.subject);
  const serverOptions = {
    principal,
    peers,
    writePath,
    // With MCP Apps on, desktop hosts on stdio get the search-results view as the HTTP gateway serves it.
    tools: config.mcpApps ? withSearchResultsView(tools) : tools,
    logger,
    version: gatewayVersion,
    instructions: config.instructions,
    ...(config.mcpApps ? { documents: [searchResultsAppResource()] } : {}),
  };
  let connection: StdioConnection | undefined;
  let closing: Promise<void> | undefined;
  return {
    serveStdio() {
      if (connection !== undefined) throw new Error("MCP is already served on stdio");
      connection = serveBothRevisionsOnStdio(serverOptions);
      return connection;
    },
    close() {
      closing ??= (async () => {
        spaceCheck.stop();
        earlyGeneration.stop();
        await connection?.close();
        peers.close();
      })();
      return closing;
    },
  };
}
