import type { MethodDefinition, ServiceDefinition } from "@grpc/grpc-js";
import { fromBinary, toBinary, type DescMessage, type DescMethod, type DescService } from "@bufbuild/protobuf";

/** The HTTP/2 path of a method, e.g. `/contexthub.store.v1.StoreService/Commit`. */
export function methodPath(method: DescMethod): string {
  return `/${method.parent.typeName}/${method.name}`;
}

/**
 * `message` in protobuf's binary form, as a Buffer over the encoder's own
 * bytes: `Buffer.from` of a Uint8Array would copy them, and a megabyte
 * write's messages are megabytes, copied again by grpc-js's framing.
 */
export function encodeMessage(schema: DescMessage, message: unknown): Buffer {
  const bytes = toBinary(schema, message as never);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** A grpc-js service definition whose (de)serialisers are the protobuf-es codecs of the descriptor. */
export function toServiceDefinition(service: DescService): ServiceDefinition {
  const definition: Record<string, MethodDefinition<unknown, unknown>> = {};
  for (const method of service.methods) {
    definition[method.localName] = {
      path: methodPath(method),
      requestStream: method.methodKind === "client_streaming" || method.methodKind === "bidi_streaming",
      responseStream: method.methodKind === "server_streaming" || method.methodKind === "bidi_streaming",
      requestSerialize: (message: unknown) => encodeMessage(method.input, message),
      requestDeserialize: (bytes: Buffer) => fromBinary(method.input, bytes),
      responseSerialize: (message: unknown) => encodeMessage(method.output, message),
      responseDeserialize: (bytes: Buffer) => fromBinary(method.output, bytes),
    };
  }
  return definition;
}
