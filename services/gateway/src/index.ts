import type { AddressInfo } from "node:net";
import { ContextHubError, type Logger, type RunningService } from "@context-hub/common";
import { createPeers } from "./clients/peers.js";
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
  const app = createHttpApp({ config, peers, writePath, logger, version: gatewayVersion });
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
