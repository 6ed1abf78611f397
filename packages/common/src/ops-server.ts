import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "pino";
import { metricsRegistry } from "./metrics.js";

export interface OpsServerOptions {
  host: string;
  port: number;
  /** Whether the service can do useful work now (dependencies reachable). */
  isReady: () => boolean | Promise<boolean>;
  logger: Logger;
}

export interface RunningOpsServer {
  port: number;
  close(): Promise<void>;
}

/**
 * The operations endpoint of a gRPC service: `/metrics` for Prometheus,
 * `/healthz` (the process is alive) and `/readyz` (it can serve).
 */
export async function startOpsServer(options: OpsServerOptions): Promise<RunningOpsServer> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? "/").split("?")[0];
    void (async () => {
      try {
        if (path === "/metrics") {
          const body = await metricsRegistry.metrics();
          response.writeHead(200, { "content-type": metricsRegistry.contentType });
          response.end(body);
        } else if (path === "/healthz") {
          response.writeHead(200, { "content-type": "application/json" });
          response.end(JSON.stringify({ status: "ok" }));
        } else if (path === "/readyz") {
          const ready = await options.isReady();
          response.writeHead(ready ? 200 : 503, { "content-type": "application/json" });
          response.end(JSON.stringify({ status: ready ? "ready" : "not ready" }));
        } else {
          response.writeHead(404, { "content-type": "application/json" });
          response.end(JSON.stringify({ error: "not found" }));
        }
      } catch (error) {
        options.logger.error({ err: error }, "ops endpoint failed");
        if (!response.headersSent) response.writeHead(500);
        response.end();
      }
    })();
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
