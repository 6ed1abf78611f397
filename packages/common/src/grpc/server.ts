import { once } from "node:events";
import {
  Server,
  ServerCredentials,
  status,
  type Metadata,
  type ServerDuplexStream,
  type ServerUnaryCall,
  type StatusObject,
  type ServerWritableStream,
  type sendUnaryData,
  type UntypedServiceImplementation,
} from "@grpc/grpc-js";
import { create, type DescMethod, type DescMessage } from "@bufbuild/protobuf";
import { healthV1 } from "@context-hub/proto";
import type { Logger } from "pino";
import { ContextHubError, isContextHubError } from "../errors.js";
import { histogram } from "../metrics.js";
import {
  clientRequestIdHeader,
  isRequestId,
  newRequestId,
  requestIdHeader,
  runWithRequestContext,
  toClientRequestId,
} from "../request-context.js";
import { toGrpcStatus } from "./status.js";
import { toServiceDefinition } from "./service-definition.js";
import { extractTraceContext, SpanKind, withSpan } from "../tracing.js";
import { grpcMaxMessageBytes, type CallContext, type ServiceDescriptor, type ServiceImplementation } from "./types.js";

const serverDuration = histogram(
  "grpc_server_handling_seconds",
  "Time to handle a gRPC call, by method and status code.",
  ["grpc_service", "grpc_method", "grpc_code"],
);

export interface GrpcServerOptions {
  logger: Logger;
  /** Grace period for in-flight calls on shutdown before they are cancelled. */
  shutdownGraceMs?: number;
  /** Whether the service can do useful work now; health checks answer NOT_SERVING while it is false. */
  isReady?: () => boolean | Promise<boolean>;
}

/**
 * Where a gRPC server listens: a TCP `host` and `port` (0 picks a free one),
 * or a Unix domain socket at `socketPath`, which only processes that may open
 * the path can reach and which no other process can take between two starts.
 */
export type ListenTarget = { host: string; port: number } | { socketPath: string };

/** The address a client dials (and a server binds) for `target`: `host:port`, or `unix:<path>`. */
export function toDialAddress(target: ListenTarget): string {
  if ("socketPath" in target) return `unix:${target.socketPath}`;
  return `${target.host.includes(":") ? `[${target.host}]` : target.host}:${target.port}`;
}

export interface RunningGrpcServer {
  /** The bound TCP port; 0 on a Unix socket. */
  port: number;
  /** What clients dial to reach this server (see `toDialAddress`). */
  address: string;
  /** Marks every registered service (and the overall server) serving or not in grpc.health.v1. */
  setServing(serving: boolean): void;
  /** Stops accepting calls, drains in-flight ones for the grace period, then cancels the rest. */
  shutdown(): Promise<void>;
}

export interface GrpcServerBuilder {
  addService<S extends ServiceDescriptor>(service: S, implementation: ServiceImplementation<S>): GrpcServerBuilder;
  listen(target: ListenTarget): Promise<RunningGrpcServer>;
}

/** A gRPC server with grpc.health.v1, request ids, metrics and domain-error mapping on every call. */
export function createGrpcServer(options: GrpcServerOptions): GrpcServerBuilder {
  const server = new Server({ "grpc.max_receive_message_length": grpcMaxMessageBytes });
  const serviceNames: string[] = [""];
  const health = createHealthState(options.isReady ?? (() => true));
  const { logger } = options;

  const builder: GrpcServerBuilder = {
    addService(service, implementation) {
      const handlers: UntypedServiceImplementation = {};
      for (const method of service.methods) {
        const handler = (implementation as Record<string, (input: unknown, context: CallContext) => unknown>)[
          method.localName
        ];
        if (handler === undefined) throw new Error(`${service.typeName}.${method.name} has no implementation`);
        if (method.methodKind === "unary")
          handlers[method.localName] = wrapUnary(service.typeName, method, handler as never, logger);
        else if (method.methodKind === "client_streaming")
          throw new Error(`${service.typeName}.${method.name}: client-streaming methods are not supported`);
        else handlers[method.localName] = wrapStreaming(service.typeName, method, handler as never, logger);
      }
      server.addService(toServiceDefinition(service as never), handlers);
      serviceNames.push(service.typeName);
      return builder;
    },
    async listen(target) {
      server.addService(toServiceDefinition(healthV1.Health as never), health.handlers);
      const boundPort = await new Promise<number>((resolve, reject) => {
        server.bindAsync(toDialAddress(target), ServerCredentials.createInsecure(), (error, actualPort) =>
          error ? reject(error) : resolve(actualPort),
        );
      });
      for (const name of serviceNames) health.set(name, true);
      const bound: ListenTarget = "socketPath" in target ? target : { host: target.host, port: boundPort };
      return {
        port: "socketPath" in bound ? 0 : bound.port,
        address: toDialAddress(bound),
        setServing(serving) {
          for (const name of serviceNames) health.set(name, serving);
        },
        async shutdown() {
          for (const name of serviceNames) health.set(name, false);
          health.endWatches();
          await new Promise<void>((resolve) => {
            const timer = setTimeout(() => {
              server.forceShutdown();
              resolve();
            }, options.shutdownGraceMs ?? 10_000);
            server.tryShutdown(() => {
              clearTimeout(timer);
              resolve();
            });
          });
        },
      };
    },
  };
  return builder;
}

/** Unary calls this process's gRPC servers have received and not yet answered. */
let unaryCallsRunning = 0;

/**
 * How many unary calls this process is serving now: background work on the
 * serving thread (the vector graph's inserts) waits while any is, so a
 * caller's answer is not held up at each turn of the event loop. Streaming
 * calls (watches) stay open and are not counted.
 */
export function unaryCallsInProgress(): number {
  return unaryCallsRunning;
}

function requestIdOf(metadata: Metadata): string {
  const value = metadata.get(requestIdHeader)[0];
  return isRequestId(value) ? value : newRequestId();
}

/** The status a failed call answers: a domain error as it is, anything else logged and answered as INTERNAL with the request id. */
function statusOfError(error: unknown, method: DescMethod, requestId: string, logger: Logger): Partial<StatusObject> {
  if (isContextHubError(error) && error.code !== "INTERNAL") {
    logger.debug({ method: method.name, code: error.code }, error.message);
    return toGrpcStatus(error);
  }
  logger.error({ err: error, method: method.name }, "unexpected error");
  const internal = new ContextHubError("INTERNAL", `internal error (request id ${requestId})`, {
    details: { request_id: requestId },
  });
  return toGrpcStatus(internal);
}

/** The request id, abort signal and deadline a handler sees; the signal aborts when the caller goes away before the answer. */
function callContextOf(call: ServerUnaryCall<unknown, unknown> | ServerDuplexStream<unknown, unknown>) {
  const requestId = requestIdOf(call.metadata);
  const controller = new AbortController();
  const state = { answered: false };
  // grpc-js also reports "cancelled" when the stream closes after a sent reply: only a call still running is cancelled.
  call.on("cancelled", () => {
    if (!state.answered)
      controller.abort(new ContextHubError("DEADLINE_EXCEEDED", "the caller cancelled or its deadline passed"));
  });
  const deadline = call.getDeadline();
  const context: CallContext = {
    requestId,
    deadline: deadline instanceof Date ? deadline : Number.isFinite(deadline) ? new Date(deadline) : undefined,
    signal: controller.signal,
  };
  return { context, state };
}

/**
 * The caller's messages, failing with the abort's reason when the caller goes
 * away: grpc-js does not fail a cancelled call's messages, so a handler
 * reading them could wait forever, or take a stream cut short for a whole one.
 */
async function* untilAborted<T>(messages: AsyncIterator<T>, signal: AbortSignal): AsyncGenerator<T> {
  const aborted = new Promise<never>((_, reject) => {
    if (signal.aborted) reject(signal.reason as Error);
    signal.addEventListener("abort", () => reject(signal.reason as Error), { once: true });
  });
  aborted.catch(() => undefined);
  for (;;) {
    const next = await Promise.race([messages.next(), aborted]);
    if (next.done === true) return;
    yield next.value;
  }
}

/**
 * A streaming method: writes the handler's replies as they come, waiting
 * while the caller's side is full (so a large stream holds little memory),
 * and ends with OK, or with the handler's error as a unary call would.
 */
function wrapStreaming(
  serviceName: string,
  method: DescMethod,
  handler: (input: unknown, context: CallContext) => AsyncIterable<unknown>,
  logger: Logger,
) {
  const output: DescMessage = method.output;
  return (call: ServerDuplexStream<unknown, unknown>) => {
    const started = process.hrtime.bigint();
    const { context, state } = callContextOf(call);
    const observe = (code: status) =>
      serverDuration.observe(
        { grpc_service: serviceName, grpc_method: method.name, grpc_code: status[code] },
        Number(process.hrtime.bigint() - started) / 1e9,
      );
    // A bidirectional call's messages, read without ending the call when the handler stops reading early.
    const input =
      method.methodKind === "server_streaming"
        ? (call as unknown as { request: unknown }).request
        : untilAborted(call.iterator({ destroyOnReturn: false }), context.signal);
    const clientRequestId = toClientRequestId(call.metadata.get(clientRequestIdHeader)[0]);
    const parent = extractTraceContext((key) => {
      const value = call.metadata.get(key)[0];
      return typeof value === "string" ? value : undefined;
    });
    const attributes = { "rpc.system": "grpc", "rpc.service": serviceName, "rpc.method": method.name };
    const run = async () => {
      try {
        for await (const reply of handler(input, context)) {
          context.signal.throwIfAborted();
          if (!call.write(create(output, reply as never)))
            await once(call, "drain", { signal: context.signal }).catch(() => context.signal.throwIfAborted());
        }
        state.answered = true;
        observe(status.OK);
        call.end();
      } catch (error) {
        state.answered = true;
        if (context.signal.aborted) {
          observe(status.CANCELLED);
          return;
        }
        const grpcStatus = statusOfError(error, method, context.requestId, logger);
        observe(grpcStatus.code ?? status.UNKNOWN);
        call.emit("error", { ...grpcStatus, message: grpcStatus.details });
      }
    };
    void runWithRequestContext({ requestId: context.requestId, clientRequestId }, () =>
      withSpan(`${serviceName}/${method.name}`, attributes, run, { kind: SpanKind.SERVER, parent }),
    );
  };
}

function wrapUnary(
  serviceName: string,
  method: DescMethod,
  handler: (request: unknown, context: CallContext) => Promise<unknown>,
  logger: Logger,
) {
  const output: DescMessage = method.output;
  return (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => {
    const started = process.hrtime.bigint();
    const { context, state } = callContextOf(call);
    const { requestId } = context;
    unaryCallsRunning += 1;
    const observe = (code: status) => {
      unaryCallsRunning -= 1;
      serverDuration.observe(
        { grpc_service: serviceName, grpc_method: method.name, grpc_code: status[code] },
        Number(process.hrtime.bigint() - started) / 1e9,
      );
    };

    const parent = extractTraceContext((key) => {
      const value = call.metadata.get(key)[0];
      return typeof value === "string" ? value : undefined;
    });
    const attributes = {
      "rpc.system": "grpc",
      "rpc.service": serviceName,
      "rpc.method": method.name,
      "contexthub.request_id": requestId,
    };
    runWithRequestContext(
      { requestId, clientRequestId: toClientRequestId(call.metadata.get(clientRequestIdHeader)[0]) },
      () => {
        withSpan(`${serviceName}/${method.name}`, attributes, () => handler(call.request, context), {
          kind: SpanKind.SERVER,
          parent,
        }).then(
          (response) => {
            state.answered = true;
            observe(status.OK);
            callback(null, create(output, response as never) as never);
          },
          (error: unknown) => {
            state.answered = true;
            const grpcStatus = statusOfError(error, method, requestId, logger);
            observe(grpcStatus.code ?? status.UNKNOWN);
            callback(grpcStatus as never);
          },
        );
      },
    );
  };
}

type ServingStatus = healthV1.HealthCheckResponse_ServingStatus;

function createHealthState(isReady: () => boolean | Promise<boolean>) {
  const statuses = new Map<string, ServingStatus>();
  const watchers = new Set<{
    service: string;
    stream: ServerWritableStream<healthV1.HealthCheckRequest, healthV1.HealthCheckResponse>;
  }>();
  const statusOf = (service: string): ServingStatus =>
    statuses.get(service) ?? healthV1.HealthCheckResponse_ServingStatus.SERVICE_UNKNOWN;
  const reply = (service: string) => create(healthV1.HealthCheckResponseSchema, { status: statusOf(service) });

  const handlers: UntypedServiceImplementation = {
    check(
      call: ServerUnaryCall<healthV1.HealthCheckRequest, healthV1.HealthCheckResponse>,
      callback: sendUnaryData<healthV1.HealthCheckResponse>,
    ) {
      const service = call.request.service;
      if (!statuses.has(service)) {
        callback({ code: status.NOT_FOUND, details: `unknown service "${service}"` });
        return;
      }
      const stored = statusOf(service);
      if (stored !== healthV1.HealthCheckResponse_ServingStatus.SERVING) {
        callback(null, reply(service));
        return;
      }
      Promise.resolve()
        .then(isReady)
        .then(
          (ready) =>
            callback(
              null,
              ready
                ? reply(service)
                : create(healthV1.HealthCheckResponseSchema, {
                    status: healthV1.HealthCheckResponse_ServingStatus.NOT_SERVING,
                  }),
            ),
          () =>
            callback(
              null,
              create(healthV1.HealthCheckResponseSchema, {
                status: healthV1.HealthCheckResponse_ServingStatus.NOT_SERVING,
              }),
            ),
        );
    },
    watch(stream: ServerWritableStream<healthV1.HealthCheckRequest, healthV1.HealthCheckResponse>) {
      const watcher = { service: stream.request.service, stream };
      watchers.add(watcher);
      stream.write(reply(watcher.service));
      stream.on("cancelled", () => watchers.delete(watcher));
    },
  };

  return {
    handlers,
    set(service: string, serving: boolean) {
      const next = serving
        ? healthV1.HealthCheckResponse_ServingStatus.SERVING
        : healthV1.HealthCheckResponse_ServingStatus.NOT_SERVING;
      if (statuses.get(service) === next) return;
      statuses.set(service, next);
      for (const watcher of watchers) if (watcher.service === service) watcher.stream.write(reply(service));
    },
    endWatches() {
      for (const watcher of watchers) watcher.stream.end();
      watchers.clear();
    },
  };
}
