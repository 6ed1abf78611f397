import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { ContextHubError, isLoopbackHost, toDialAddress, type Logger, type RunningService } from "@context-hub/common";
import {
  createApiKeyVerifier,
  createBearerAuthenticator,
  createLocalAuthenticator,
  type Authenticator,
  type CredentialVerifier,
} from "./auth/authenticate.js";
import { cacheDirectory, layerDirectories, watchKeysFile, type WatchedKeysFile } from "./auth/key-directory.js";
import { createOidcVerifier } from "./auth/oidc-verifier.js";
import { describeProtectedResource } from "./auth/protected-resource.js";
import { createPeers, type Peers } from "./clients/peers.js";
import { createEarlyGeneration } from "./clients/early-generation.js";
import { createStoreKeyDirectory } from "./clients/store-key-directory.js";
import { enabledTools } from "./mcp/tools/index.js";
import { toolsIn } from "./mcp/tools/toolsets.js";
import { createLocalPrincipal } from "./principal.js";
import type { GatewayConfig } from "./config.js";
import { NotificationStreams } from "./mcp/resource-subscriptions.js";
import { createRateLimiter } from "./rate-limit.js";
import { createHttpApp } from "./server.js";
import { createWritePath } from "./write-path.js";
import { gatewayVersion } from "./gateway-version.js";
import { checkEmbeddingSpaceBeforeServing } from "./embedding-space-check.js";

export { loadGatewayConfig, type GatewayConfig } from "./config.js";
export { createEarlyGeneration, type EarlyGeneration } from "./clients/early-generation.js";
export { createLocalPrincipal, type Principal } from "./principal.js";
export { renderForModel } from "./mcp/untrusted-text.js";
export { openLocalMcp, type LocalMcp } from "./local-mcp.js";
export { narrowToolsets, parseToolsets, toolsetNames, toolsets, type ToolsetName } from "./mcp/tools/toolsets.js";
export { estimateTokens } from "./workflow/start-budget.js";

export { gatewayVersion } from "./gateway-version.js";

/** Where a gateway listens instead of its configured host and port. */
export interface GatewayListen {
  /**
   * A Unix socket, for a hub serving only its own user: the caller makes it
   * in a directory nobody else may enter, so it needs no authentication
   * even where the configured host would.
   */
  socketPath: string;
}

/** Starts the MCP gateway; it serves once its HTTP listener is bound (readiness follows its peers). */
export async function startGateway(
  config: GatewayConfig,
  logger: Logger,
  listen?: GatewayListen,
): Promise<RunningService> {
  refuseOpenExposure(config, listen);
  const tools = toolsIn(enabledTools(config.disabledTools), config.toolsets);
  const peers = createPeers(config);
  // Before listening: a gateway whose embedder cannot serve the stored vectors must not start.
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
  const { authenticator, keysFile } = createAuthenticator(config, peers, logger);
  // SIGHUP reads the API keys file again at once (it is also watched and polled).
  const onHangUp = () => {
    if (keysFile !== undefined && !keysFile.reload())
      logger.info("SIGHUP: the API keys file is unchanged (or invalid; see above)");
  };
  if (keysFile !== undefined) process.on("SIGHUP", onHangUp);
  const streams = new NotificationStreams();
  const app = createHttpApp({
    config,
    streams,
    peers,
    writePath,
    authenticator,
    tools,
    rateLimiter: createRateLimiter({ read: config.rateLimits.read, write: config.rateLimits.write }),
    protectedResource:
      config.auth.oidc === undefined
        ? undefined
        : describeProtectedResource(config.publicUrl!, config.auth.oidc.issuer),
    logger,
    version: gatewayVersion,
    embeddingSpaceCheck: spaceCheck.current,
  });
  const server = await new Promise<Server>((resolve, reject) => {
    const listener =
      listen === undefined
        ? app.listen(config.port, config.host, () => resolve(listener))
        : app.listen(listen.socketPath, () => resolve(listener));
    listener.once("error", reject);
  });
  const port = listen === undefined ? (server.address() as AddressInfo).port : 0;
  logger.info(listen === undefined ? { port } : { socketPath: listen.socketPath }, "gateway listening");
  const stopWork = () => {
    // Open notification streams end at once; their clients reconnect (to another replica).
    streams.closeAll();
    spaceCheck.stop();
    earlyGeneration.stop();
    keysFile?.close();
    process.off("SIGHUP", onHangUp);
  };
  return {
    name: "gateway",
    port,
    address: listen === undefined ? toDialAddress({ host: config.host, port }) : `unix:${listen.socketPath}`,
    opsPort: port,
    close: closeOnce(server, stopWork, () => {
      peers.close();
      logger.info("gateway stopped");
    }),
  };
}

/**
 * Refuses to serve a non-loopback address without authentication: anyone who could reach it could read and write every
 * entry. A Unix socket (`listen`) is its user's alone.
 */
function refuseOpenExposure(config: GatewayConfig, listen: GatewayListen | undefined): void {
  if (
    listen === undefined &&
    config.auth.methods.length === 0 &&
    !isLoopbackHost(config.host) &&
    !config.auth.allowNonLoopback
  ) {
    throw new ContextHubError(
      "INVALID_ARGUMENT",
      `Refusing to serve ${config.host} without authentication: anyone who can reach it could read and write every entry. Bind 127.0.0.1, turn on CONTEXT_HUB_AUTH, or set CONTEXT_HUB_ALLOW_NON_LOOPBACK=true if a proxy in front authenticates.`,
    );
  }
}

/**
 * The gateway's close: the first call runs `stop`, closes the listener and runs `closed` once it has; every call
 * returns the same promise.
 */
function closeOnce(server: Server, stop: () => void, closed: () => void): () => Promise<void> {
  let closing: Promise<void> | undefined;
  return () => {
    closing ??= new Promise<void>((resolve) => {
      stop();
      server.close(() => {
        closed();
        resolve();
      });
      // Stateless requests are short; idle keep-alive sockets should not hold shutdown open.
      server.closeIdleConnections();
      setTimeout(() => server.closeAllConnections(), 10_000).unref();
    });
    return closing;
  };
}

/** One verifier per configured method, chained: a chk_ credential is an API key, a JWT-shaped one an OIDC access token. */
function createAuthenticator(
  config: GatewayConfig,
  peers: Peers,
  logger: Logger,
): { authenticator: Authenticator; keysFile: WatchedKeysFile | undefined } {
  if (config.auth.methods.length === 0) {
    return {
      authenticator: createLocalAuthenticator(
        createLocalPrincipal(config.auth.localPrincipal.tenant, config.auth.localPrincipal.subject),
      ),
      keysFile: undefined,
    };
  }
  const verifiers: CredentialVerifier[] = [];
  let keysFile: WatchedKeysFile | undefined;
  if (config.auth.methods.includes("api-key")) {
    if (config.auth.keysFile !== undefined)
      keysFile = watchKeysFile(config.auth.keysFile, { pollMs: config.auth.keysFilePollMs, log: logger });
    // The store's answer (revocations included) is cached; the file's keys are in memory.
    const store = cacheDirectory(createStoreKeyDirectory(peers.apiKeys), config.auth.keyCacheMs);
    verifiers.push(createApiKeyVerifier(layerDirectories(keysFile, store)));
  }
  if (config.auth.oidc !== undefined) verifiers.push(createOidcVerifier(config.auth.oidc));
  return { authenticator: createBearerAuthenticator(verifiers), keysFile };
}
