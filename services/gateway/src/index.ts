import type { AddressInfo } from "node:net";
import { ContextHubError, type Logger, type RunningService } from "@context-hub/common";
import { createApiKeyAuthenticator, createLocalAuthenticator, type Authenticator } from "./auth/authenticate.js";
import { cacheDirectory, chainDirectories, loadKeysFile, type KeyDirectory } from "./auth/key-directory.js";
import { createPeers, type Peers } from "./clients/peers.js";
import { createStoreKeyDirectory } from "./clients/store-key-directory.js";
import { createLocalPrincipal } from "./principal.js";
import type { GatewayConfig } from "./config.js";
import { createHttpApp, isLoopbackHost } from "./server.js";
import { createWritePath } from "./write-path.js";

export { loadGatewayConfig, type GatewayConfig } from "./config.js";
export { createLocalPrincipal, type Principal } from "./principal.js";

export const gatewayVersion = "0.1.0";

/** Starts the MCP gateway; it serves once its HTTP listener is bound (readiness follows its peers). */
export async function startGateway(config: GatewayConfig, logger: Logger): Promise<RunningService> {
  if (config.auth.mode === "none" && !isLoopbackHost(config.host) && !config.auth.allowNonLoopback) {
    throw new ContextHubError(
      "INVALID_ARGUMENT",
      `Refusing to serve ${config.host} without authentication: anyone who can reach it could read and write every entry. Bind 127.0.0.1, turn on CONTEXT_HUB_AUTH, or set CONTEXT_HUB_ALLOW_NON_LOOPBACK=true if a proxy in front authenticates.`,
    );
  }
  const peers = createPeers(config);
  const writePath = createWritePath({ peers, sectionSummaryTimeoutMs: config.timeouts.sectionSummaryMs });
  const authenticator = createAuthenticator(config, peers);
  const app = createHttpApp({ config, peers, writePath, authenticator, logger, version: gatewayVersion });
  const server = await new Promise<import("node:http").Server>((resolve, reject) => {
    const listener = app.listen(config.port, config.host, () => resolve(listener));
    listener.once("error", reject);
  });
  const port = (server.address() as AddressInfo).port;
  logger.info({ port }, "gateway listening");
  let closing: Promise<void> | undefined;
  return {
    name: "gateway",
    port,
    opsPort: port,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => {
          peers.close();
          logger.info("gateway stopped");
          resolve();
        });
        // Stateless requests are short; idle keep-alive sockets should not hold shutdown open.
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), 10_000).unref();
      });
      return closing;
    },
  };
}

function createAuthenticator(config: GatewayConfig, peers: Peers): Authenticator {
  if (config.auth.mode === "none") return createLocalAuthenticator(createLocalPrincipal(config.auth.localPrincipal.tenant, config.auth.localPrincipal.subject));
  const directories: KeyDirectory[] = [];
  // File keys are checked first: they are in memory and cannot be revoked through the store.
  if (config.auth.keysFile !== undefined) directories.push(loadKeysFile(config.auth.keysFile));
  directories.push(cacheDirectory(createStoreKeyDirectory(peers.store), config.auth.keyCacheMs));
  return createApiKeyAuthenticator(chainDirectories(directories));
}
