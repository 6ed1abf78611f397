import type { MethodDefinition, ServiceDefinition } from "@grpc/grpc-js";
import { fromBinary, toBinary, type DescMethod, type DescService } from "@bufbuild/protobuf";

/** The HTTP/2 path of a method, e.g. `/contexthub.store.v1.StoreService/Commit`. */
export function methodPath(method: DescMethod): string {
  return `/${method.parent.typeName}/${method.name}`;
}

/** A grpc-js service definition whose (de)serialisers are the protobuf-es codecs of the descriptor. */
export function toServiceDefinition(service: DescService): ServiceDefinition {
  const definition: Record<string, MethodDefinition<unknown, unknown>> = {};
  for (const method of service.methods) {
    definition[method.localName] = {
      path: methodPath(method),
      requestStream: method.methodKind === "client_streaming" || method.methodKind === "bidi_streaming",
      responseStream: method.methodKind === "server_streaming" || method.methodKind === "bidi_streaming",
      requestSerialize: (message: unknown) => Buffer.from(toBinary(method.input, message as never)),
      requestDeserialize: (bytes: Buffer) => fromBinary(method.input, bytes),
      responseSerialize: (message: unknown) => Buffer.from(toBinary(method.output, message as never)),
      responseDeserialize: (bytes: Buffer) => fromBinary(method.output, bytes),
    };
  }
  return definition;
}
