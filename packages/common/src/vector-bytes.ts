import { invalidArgument } from "./errors.js";

// Vectors cross gRPC as protobuf `bytes`: IEEE-754 float32, little-endian,
// 4 bytes per component (the bytes a packed `repeated float` carries). The
// runtime's encoder writes a `repeated float` one component at a time, with
// an allocation each; as one block a vector costs a single copy at most.

const hostIsLittleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** The wire bytes of a vector. A little-endian host shares a Float32Array's memory instead of copying it. */
export function vectorToBytes(vector: ArrayLike<number>): Uint8Array {
  if (hostIsLittleEndian) {
    const floats = vector instanceof Float32Array ? vector : Float32Array.from(vector);
    return new Uint8Array(floats.buffer, floats.byteOffset, floats.byteLength);
  }
  const bytes = new Uint8Array(vector.length * 4);
  const view = new DataView(bytes.buffer);
  for (let index = 0; index < vector.length; index++) view.setFloat32(index * 4, vector[index]!, true);
  return bytes;
}

/** The components of a vector's wire bytes; `field` names it in the error when the bytes are not whole float32 values. */
export function vectorFromBytes(bytes: Uint8Array, field: string): number[] {
  if (bytes.byteLength % 4 !== 0) {
    throw invalidArgument(
      `${field} is ${bytes.byteLength} bytes, not a whole number of float32 components (4 bytes each, little-endian)`,
    );
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const components = new Array<number>(bytes.byteLength / 4);
  for (let index = 0; index < components.length; index++) components[index] = view.getFloat32(index * 4, true);
  return components;
}
