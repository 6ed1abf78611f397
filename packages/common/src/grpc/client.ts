import { once } from "node:events";
import {
  Client,
  credentials,
  Metadata,
  status,
  type ClientDuplexStream,
  type ClientReadableStream,
  type ServiceError,
} from "@grpc/grpc-js";
import { create, fromBinary, type DescMethod } from "@bufbuild/protobuf";
import { MethodOptions_IdempotencyLevel } from "@bufbuild/protobuf/wkt";
import { healthV1 } from "@context-hub/proto";
import { ContextHubError } from "../errors.js";
import { histogram } from "../metrics.js";
import { clientRequestIdHeader, currentRequestContext, newRequestId, requestIdHeader } from "../request-context.js";
import { fromGrpcError, type PeerName } from "./status.js";
import { injectTraceContext, SpanKind, withSpan } from "../tracing.js";
import { encodeMessage, methodPath } from "./service-definition.js";
import { grpcMaxMessageBytes, type CallOptions, type ServiceClient, type ServiceDescriptor } from "./types.js";

const clientDuration = histogram(
  "grpc_client_handling_seconds",
  "Time a gRPC call took as the client saw it, by method and status code.",
  ["grpc_service", "grpc_method", "grpc_code"],
);

export interface GrpcClientOptions {
  /** host:port of the peer. */
  address: string;
  /** Names the peer in errors ("the embedder service is unavailable, …"). */
  peer: PeerName;
  /** Default deadline of every call. */
  deadlineMs: number;
  /** Extra attempts for idempotent methods on UNAVAILABLE, within the deadline. */
  retries?: number;
  /** Longest wait between two attempts to reconnect to a peer that went away (see reconnectBackoffMaxMs). */
  reconnectBackoffMaxMs?: number;
}

/**
 * gRPC waits ever longer between attempts to reach a peer that went away (1 s, then ×1.6 each time, up to 120 s),
 * and a call made meanwhile fails at once rather than trying to connect. So after a worker's restart the gateway went
 * on failing calls for up to half the outage again (a 20 s outage: 9.5 s more). Peers here are a few services in the
 * same cluster, so trying every 2 s at most costs nothing and bounds that lag.
 */
export const reconnectBackoffMaxMs = 2_000;

export type GrpcClient<S extends ServiceDescriptor> = ServiceClient<S> & {
  /**
   * Asks the peer's grpc.health.v1 whether it is serving: the whole server,
   * or with `serviceName`, that one service (so a different server found at
   * the address does not pass for this one).
   */
  isServing(deadlineMs?: number, serviceName?: string): Promise<boolean>;
  close(): void;
};

/**
 * A typed gRPC client over protobuf-es messages. Every call has a deadline and
 * carries the current request id; only methods declared idempotent in the
 * .proto are retried, and only on UNAVAILABLE.
 */
export function createGrpcClient<S extends ServiceDescriptor>(service: S, options: GrpcClientOptions): GrpcClient<S> {
  const client = new Client(options.address, credentials.createInsecure(), {
    "grpc.max_receive_message_length": grpcMaxMessageBytes,
    "grpc.keepalive_time_ms": 30_000,
    "grpc.max_reconnect_backoff_ms": options.reconnectBackoffMaxMs ?? reconnectBackoffMaxMs,
    "grpc.initial_reconnect_backoff_ms": Math.min(1_000, options.reconnectBackoffMaxMs ?? reconnectBackoffMaxMs),
  });
  const retries = options.retries ?? 2;
  const methods: Record<string, unknown> = {};

  for (const method of service.methods) {
    if (method.methodKind === "server_streaming" || method.methodKind === "bidi_streaming") {
      methods[method.localName] = (input: unknown, callOptions: CallOptions = {}) =>
        callStreaming(client, method, input, callOptions, options.peer);
      continue;
    }
    if (method.methodKind !== "unary") continue;
    const retryable = method.idempotency !== MethodOptions_IdempotencyLevel.IDEMPOTENCY_UNKNOWN;
    methods[method.localName] = async (request: unknown, callOptions: CallOptions = {}) => {
      const deadline = Date.now() + (callOptions.deadlineMs ?? options.deadlineMs);
      const message = create(method.input, request as never);
      for (let attempt = 0; ; attempt++) {
        try {
          return await callUnary(client, method, message, deadline, callOptions.signal);
        } catch (error) {
          const serviceError = error as ServiceError;
          // Only a transport failure is retried: a peer that answered with a domain error (its provider
          // failing, say) has already made its own bounded retries, and retrying here would multiply them.
          const answeredByPeer = serviceError.metadata?.get("ch-error-code").length > 0;
          const canRetry =
            retryable && serviceError.code === status.UNAVAILABLE && !answeredByPeer && attempt < retries;
          const backoff = Math.min(1000, 50 * 2 ** attempt) * (0.5 + Math.random());
          if (!canRetry || Date.now() + backoff >= deadline || callOptions.signal?.aborted) {
            throw fromGrpcError(serviceError, options.peer);
          }
          await new Promise((resolve) => setTimeout(resolve, backoff));
        }
      }
    };
  }

  const healthCheck = healthV1.Health.method.check;
  return Object.assign(methods as ServiceClient<S>, {
    async isServing(deadlineMs = 2000, serviceName = "") {
      try {
        const reply = await callUnary(
          client,
          healthCheck,
          create(healthCheck.input, { service: serviceName }),
          Date.now() + deadlineMs,
          undefined,
        );
        return (reply as healthV1.HealthCheckResponse).status === healthV1.HealthCheckResponse_ServingStatus.SERVING;
      } catch {
        return false;
      }
    },
    close: () => client.close(),
  });
}

function callUnary(
  client: Client,
  method: DescMethod,
  message: unknown,
  deadline: number,
  signal: AbortSignal | undefined,
): Promise<unknown> {
  const attributes = { "rpc.system": "grpc", "rpc.service": method.parent.typeName, "rpc.method": method.name };
  return withSpan(
    `${method.parent.typeName}/${method.name}`,
    attributes,
    () => sendUnary(client, method, message, deadline, signal),
    { kind: SpanKind.CLIENT },
  );
}

/** The metadata every call carries: the trace context, the request id and the client's own request id. */
function callMetadata(): Metadata {
  const metadata = new Metadata();
  injectTraceContext((key, value) => metadata.set(key, value));
  const context = currentRequestContext();
  metadata.set(requestIdHeader, context?.requestId ?? newRequestId());
  if (context?.clientRequestId !== undefined) metadata.set(clientRequestIdHeader, context.clientRequestId);
  return metadata;
}

const isServiceError = (error: unknown): error is ServiceError =>
  error instanceof Error && typeof (error as Partial<ServiceError>).code === "number" && "metadata" in error;

/**
 * A streaming call, made when the caller starts reading its replies: a
 * server-streaming method sends `input` as its request; a bidirectional one
 * sends the messages `input` yields (waiting while the peer's side is full),
 * then closes its side. Never retried; no deadline unless the call sets one.
 * Stopping early, or `signal`, cancels the call.
 */
async function* callStreaming(
  client: Client,
  method: DescMethod,
  input: unknown,
  callOptions: CallOptions,
  peer: PeerName,
): AsyncGenerator<unknown> {
  const path = methodPath(method);
  const serialize = (value: unknown) => encodeMessage(method.input, create(method.input, value as never));
  const deserialize = (bytes: Buffer) => fromBinary(method.output, bytes);
  const deadline =
    callOptions.deadlineMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + callOptions.deadlineMs;
  callOptions.signal?.throwIfAborted();
  let call: ClientReadableStream<unknown> | ClientDuplexStream<unknown, unknown>;
  const sending: { error?: unknown } = {};
  if (method.methodKind === "server_streaming") {
    call = client.makeServerStreamRequest(path, serialize, deserialize, input, callMetadata(), { deadline });
  } else {
    const duplex = client.makeBidiStreamRequest(path, serialize, deserialize, callMetadata(), { deadline });
    call = duplex;
    void (async () => {
      for await (const message of input as AsyncIterable<unknown>) {
        if (!duplex.write(message)) await once(duplex, "drain");
      }
      duplex.end();
    })().catch((error: unknown) => {
      // The caller's own failure (its file unreadable, say) is what the caller hears, not the cancelled call.
      if (!isServiceError(error)) sending.error = error;
      duplex.cancel();
    });
  }
  const onAbort = () => call.cancel();
  callOptions.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    for await (const reply of call) yield reply;
  } catch (error) {
    if (sending.error !== undefined) throw sending.error;
    callOptions.signal?.throwIfAborted();
    throw isServiceError(error) ? fromGrpcError(error, peer) : error;
  } finally {
    callOptions.signal?.removeEventListener("abort", onAbort);
    // A reader that stopped early no longer wants the rest.
    call.cancel();
  }
}

function sendUnary(
  client: Client,
  method: DescMethod,
  message: unknown,
  deadline: number,
  signal: AbortSignal | undefined,
): Promise<unknown> {
  const metadata = callMetadata();
  const started = process.hrtime.bigint();
  const labels = { grpc_service: method.parent.typeName, grpc_method: method.name };
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(
        Object.assign(new Error("cancelled"), {
          code: status.CANCELLED,
          details: "cancelled",
          metadata: new Metadata(),
        }),
      );
      return;
    }
    const call = client.makeUnaryRequest(
      methodPath(method),
      (value: unknown) => encodeMessage(method.input, value),
      (bytes: Buffer) => fromBinary(method.output, bytes),
      message,
      metadata,
      { deadline },
      (error, response) => {
        signal?.removeEventListener("abort", onAbort);
        clientDuration.observe(
          { ...labels, grpc_code: status[error?.code ?? status.OK] },
          Number(process.hrtime.bigint() - started) / 1e9,
        );
        if (error) reject(error);
        else resolve(response);
      },
    );
    const onAbort = () => call.cancel();
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Raised by code that needs a peer which is not configured. */
export function peerNotConfigured(peer: PeerName): ContextHubError {
  return new ContextHubError("INTERNAL", `${peer} address is not configured`);
}
