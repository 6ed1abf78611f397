import { test } from "node:test";
import assert from "node:assert/strict";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { embedderV1 } from "@context-hub/proto";
import { isContextHubError } from "./errors.js";
import { vectorFromBytes, vectorToBytes } from "./vector-bytes.js";

test("a vector survives the trip through its wire bytes, float32 exact", () => {
  const components = [0.5, -0.25, 1e-8, 3.4e38, -0, 0.1];
  const back = vectorFromBytes(vectorToBytes(components), "v");
  assert.deepEqual(back, Array.from(Float32Array.from(components)));
  assert.equal(vectorToBytes(components).byteLength, components.length * 4);
});

test("the bytes are little-endian float32, the same bytes a packed repeated float carries", () => {
  assert.deepEqual(Array.from(vectorToBytes([1])), [0x00, 0x00, 0x80, 0x3f]);
  // Field 1 as packed `repeated float` [1, -2]: tag 0x0a, length 8, then the components.
  const packed = new Uint8Array([0x0a, 0x08, 0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x00, 0xc0]);
  const vector = fromBinary(embedderV1.VectorSchema, packed);
  assert.deepEqual(vectorFromBytes(vector.float32Le, "v"), [1, -2]);
  assert.deepEqual(
    toBinary(embedderV1.VectorSchema, create(embedderV1.VectorSchema, { float32Le: vectorToBytes([1, -2]) })),
    packed,
  );
});

test("a Float32Array is shared, not copied, and a view at an odd offset still reads right", () => {
  const floats = new Float32Array([1, 2, 3]);
  const bytes = vectorToBytes(floats);
  assert.equal(bytes.buffer, floats.buffer);
  const shifted = new Uint8Array(13);
  shifted.set(bytes, 1);
  assert.deepEqual(vectorFromBytes(shifted.subarray(1), "v"), [1, 2, 3]);
});

test("bytes that are not whole float32 components are refused, naming the field", () => {
  assert.throws(
    () => vectorFromBytes(new Uint8Array(6), "chunks[2].vector"),
    (error: unknown) =>
      isContextHubError(error) &&
      error.code === "INVALID_ARGUMENT" &&
      /chunks\[2\]\.vector is 6 bytes, not a whole number of float32 components/.test(error.message),
  );
  assert.deepEqual(vectorFromBytes(new Uint8Array(), "v"), []);
});
