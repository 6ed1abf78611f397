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

/** What a server implements: one async function per unary method. */
export type ServiceImplementation<S extends ServiceDescriptor> = {
  [K in keyof UnaryMethods<S>]: UnaryMethods<S>[K] extends UnaryMethod
    ? (
        request: MessageShape<UnaryMethods<S>[K]["input"]>,
        context: CallContext,
      ) => Promise<MessageInitShape<UnaryMethods<S>[K]["output"]>>
    : never;
};

export interface CallOptions {
  /** Overrides the client's default deadline for this call. */
  deadlineMs?: number;
  signal?: AbortSignal;
}

/** What a client offers: one promise-returning function per unary method. */
export type ServiceClient<S extends ServiceDescriptor> = {
  [K in keyof UnaryMethods<S>]: UnaryMethods<S>[K] extends UnaryMethod
    ? (
        request: MessageInitShape<UnaryMethods<S>[K]["input"]>,
        options?: CallOptions,
      ) => Promise<MessageShape<UnaryMethods<S>[K]["output"]>>
    : never;
};
