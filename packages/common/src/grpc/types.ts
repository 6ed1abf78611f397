import type { DescMessage, DescMethod, MessageInitShape, MessageShape } from "@bufbuild/protobuf";

/** The largest gRPC message a service accepts: one store commit, images included, must fit in it. */
export const grpcMaxMessageBytes = 64 * 1024 * 1024;

/** A service descriptor as protoc-gen-es generates it: methods keyed by local name. */
export interface ServiceDescriptor {
  readonly typeName: string;
  readonly methods: readonly DescMethod[];
  readonly method: Record<string, DescMethod>;
}

type UnaryMethod = { methodKind: "unary"; input: DescMessage; output: DescMessage };
type ServerStreamingMethod = { methodKind: "server_streaming"; input: DescMessage; output: DescMessage };
type BidiStreamingMethod = { methodKind: "bidi_streaming"; input: DescMessage; output: DescMessage };

/** The unary methods of a service, keyed by local name. */
export type UnaryMethods<S extends ServiceDescriptor> = {
  [K in keyof S["method"] as S["method"][K] extends UnaryMethod ? K : never]: S["method"][K];
};

export interface CallContext {
  requestId: string;
  /** Absolute deadline of the call, if the client set one. */
  deadline: Date | undefined;
  /** Aborted when the client cancels or the deadline passes. */
  signal: AbortSignal;
}

/** The methods a server implements and a client calls (unary, server streaming, or both ways), keyed by local name. */
export type SupportedMethods<S extends ServiceDescriptor> = {
  [K in keyof S["method"] as S["method"][K] extends UnaryMethod | ServerStreamingMethod | BidiStreamingMethod
    ? K
    : never]: S["method"][K];
};

/**
 * What a server implements for one method: a unary method answers once; a
 * streaming one yields its replies as they come. A server-streaming method
 * gets the request; a bidirectional one gets the caller's messages, which
 * end when the caller closes its side.
 */
type Handler<M> = M extends UnaryMethod
  ? (request: MessageShape<M["input"]>, context: CallContext) => Promise<MessageInitShape<M["output"]>>
  : M extends ServerStreamingMethod
    ? (request: MessageShape<M["input"]>, context: CallContext) => AsyncIterable<MessageInitShape<M["output"]>>
    : M extends BidiStreamingMethod
      ? (
          requests: AsyncIterable<MessageShape<M["input"]>>,
          context: CallContext,
        ) => AsyncIterable<MessageInitShape<M["output"]>>
      : never;

/** What a server implements: one function per method. */
export type ServiceImplementation<S extends ServiceDescriptor> = {
  [K in keyof SupportedMethods<S>]: Handler<SupportedMethods<S>[K]>;
};

export interface CallOptions {
  /**
   * Overrides the client's default deadline for this call. A streaming call
   * has none unless given here: it lasts as long as its data does (a whole
   * store's export), and `signal` ends it.
   */
  deadlineMs?: number;
  signal?: AbortSignal;
}

/**
 * What a client calls for one method: a unary call's promise of the reply,
 * or a streaming call's replies as they come (a bidirectional call sends the
 * messages `requests` yields).
 */
type Call<M> = M extends UnaryMethod
  ? (request: MessageInitShape<M["input"]>, options?: CallOptions) => Promise<MessageShape<M["output"]>>
  : M extends ServerStreamingMethod
    ? (request: MessageInitShape<M["input"]>, options?: CallOptions) => AsyncIterable<MessageShape<M["output"]>>
    : M extends BidiStreamingMethod
      ? (
          requests: AsyncIterable<MessageInitShape<M["input"]>>,
          options?: CallOptions,
        ) => AsyncIterable<MessageShape<M["output"]>>
      : never;

/** What a client offers: one function per method. */
export type ServiceClient<S extends ServiceDescriptor> = {
  [K in keyof SupportedMethods<S>]: Call<SupportedMethods<S>[K]>;
};
