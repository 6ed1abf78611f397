import type { Logger } from "pino";
import { createGrpcServer, type GrpcServerBuilder } from "./grpc/server.js";
import { startOpsServer } from "./ops-server.js";
import { startTracing } from "./tracing.js";

/** A started service, as main.ts, the all-in-one runtime and tests hold it. */
export interface RunningService {
  name: string;
  /** The port of the service's main listener (gRPC, or HTTP for the gateway); 0 when it listens on a Unix socket. */
  port: number;
  /** What a client dials to reach the main listener: `host:port`, or `unix:<path>` (see `toDialAddress`). */
  address: string;
  /** The port of /metrics, /healthz and /readyz (the main port for the gateway). */
  opsPort: number;
  close(): Promise<void>;
}

export interface GrpcServiceOptions {
  name: string;
  host: string;
  port: number;
  /** Listen on this Unix socket instead of `host`:`port` (the ops endpoint, if any, stays on `host`). */
  socketPath?: string | undefined;
  /** Ops endpoint port; 0 picks a free one, -1 disables it. */
  opsPort: number;
  logger: Logger;
  register(builder: GrpcServerBuilder): void;
  isReady?: () => boolean | Promise<boolean>;
  /** Ends calls that never end by themselves (open watches) as the server starts to drain. */
  onDraining?: () => Promise<void>;
  /** Releases the service's own resources after the server has drained. */
  onClose?: () => Promise<void>;
  shutdownGraceMs?: number;
}

/** Starts a gRPC server and its ops endpoint; `close` drains calls, then releases resources. */
export async function startGrpcService(options: GrpcServiceOptions): Promise<RunningService> {
  const builder = createGrpcServer({
    logger: options.logger,
    ...(options.shutdownGraceMs === undefined ? {} : { shutdownGraceMs: options.shutdownGraceMs }),
    ...(options.isReady === undefined ? {} : { isReady: options.isReady }),
  });
  options.register(builder);
  const grpc = await builder.listen(
    options.socketPath === undefined ? { host: options.host, port: options.port } : { socketPath: options.socketPath },
  );
  const ops =
    options.opsPort < 0
      ? undefined
      : await startOpsServer({
          host: options.host,
          port: options.opsPort,
          logger: options.logger,
          isReady: options.isReady ?? (() => true),
        });
  options.logger.info({ address: grpc.address, opsPort: ops?.port }, `${options.name} listening`);
  let closing: Promise<void> | undefined;
  return {
    name: options.name,
    port: grpc.port,
    address: grpc.address,
    opsPort: ops?.port ?? -1,
    close() {
      closing ??= (async () => {
        await options.onDraining?.();
        await grpc.shutdown();
        await ops?.close();
        await options.onClose?.();
        options.logger.info(`${options.name} stopped`);
      })();
      return closing;
    },
  };
}

/**
 * Runs a service from a main.ts: starts it, and on SIGTERM or SIGINT closes
 * it and exits. A failure to start prints the reason and exits non-zero.
 */
export function runMain(
  start: () => Promise<RunningService>,
  logger: Pick<Logger, "error" | "info">,
  serviceName?: string,
): void {
  // Traces are exported only when OTEL_EXPORTER_OTLP_ENDPOINT is set.
  const tracing = serviceName === undefined ? undefined : startTracing(serviceName, process.env);
  start().then(
    (service) => {
      const stop = (signal: string) => {
        logger.info({ signal }, "shutting down");
        service.close().then(
          async () => {
            await tracing?.shutdown().catch(() => undefined);
            process.exit(0);
          },
          (error: unknown) => {
            logger.error({ err: error }, "shutdown failed");
            process.exit(1);
          },
        );
      };
      process.once("SIGTERM", () => stop("SIGTERM"));
      process.once("SIGINT", () => stop("SIGINT"));
      // Started by a supervisor over IPC: stop with it, so a killed parent leaves no orphan holding the database.
      if (process.connected) process.once("disconnect", () => stop("parent exited"));
    },
    (error: unknown) => {
      logger.error({ err: error }, error instanceof Error ? error.message : "failed to start");
      process.exit(1);
    },
  );
}
