/**
 * The wire messages that run a prepared statement (Bind, Describe portal,
 * Execute, Sync), encoded in one buffer sized once.
 *
 * PGlite's own serializer counts each parameter's UTF-8 length in a
 * JavaScript loop, twice, and copies the message four times as its buffers
 * grow and are flushed; for a megabyte write (the text and its chunks'
 * embeddings, about 2.4 MB of parameters) that held the store's one thread
 * for 40–120 ms, while every other caller's statement waited. Here the
 * lengths come from `Buffer.byteLength` and the bytes are written once.
 */

/** Describe of the unnamed portal, Execute of it with no row limit, and Sync: the same bytes for every statement. */
const tail = Buffer.from(
  [
    "44 00000006 50 00", // Describe: length 6, a portal, named ""
    "45 00000009 00 00000000", // Execute: length 9, portal "", every row
    "53 00000004", // Sync
  ]
    .join("")
    .replaceAll(" ", ""),
  "hex",
);

/** The element type of the array type a statement gives a parameter, as `pg_type` names it. */
export interface ArrayElementType {
  oid: number;
  /** Its `typname` (`float4`, `vector`); empty when the parameter's type is not an array. */
  name: string;
}

/** What a parameter whose type is not an array has for an element type. */
export const notAnArray: ArrayElementType = { oid: 0, name: "" };

/**
 * A parameter sent in PostgreSQL's binary format instead of text, so the
 * server copies its bytes instead of parsing them (and the store's thread
 * need not print each number). `toPostgres` is its text form, which PGlite's
 * own `query` is given.
 */
export interface BinaryParam {
  /** The `pg_type` name of the array's elements (`float4`, `vector`), whose oid a server connection looks up. */
  readonly elementType: string;
  /**
   * The value in the binary format of the array type the statement gives its parameter, whose element type is
   * `element` (an array's binary form names it, and PostgreSQL refuses any other). Throws when the value is not an
   * array of that element type.
   */
  toPostgresBinary(element: ArrayElementType): Uint8Array;
  /** The same value as PostgreSQL's text input of that type reads it. */
  toPostgres(): string;
}

/** Whether `value` asks to be sent in binary. */
export function isBinaryParam(value: unknown): value is BinaryParam {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as Partial<BinaryParam>).toPostgresBinary === "function"
  );
}

/** Refuses to encode an array of `expected` for a parameter whose element type is `element`. */
function checkElement(element: ArrayElementType, expected: string): void {
  if (element.name !== expected)
    throw new Error(
      `a binary ${expected}[] parameter where the statement expects ${element.name === "" ? "no array" : `${element.name}[]`}`,
    );
}

/** The header of a one-dimensional array without nulls (`array_recv`): dimensions, no nulls, element type, length, lower bound 1. */
function writeArrayHeader(view: DataView, elementOid: number, count: number): void {
  view.setInt32(0, 1);
  view.setInt32(4, 0);
  view.setInt32(8, elementOid);
  view.setInt32(12, count);
  view.setInt32(16, 1);
}

/** An empty array: no dimensions, no nulls, and the element type. */
function emptyArray(elementOid: number): Uint8Array {
  const empty = Buffer.alloc(12);
  empty.writeInt32BE(elementOid, 8);
  return empty;
}

/**
 * `values` as a one-dimensional `real[]` in PostgreSQL's binary array format
 * (`array_recv`): dimensions, no nulls, element type `float4`, then each
 * element as its length (4) and a big-endian 32-bit float. A number that is
 * not a 32-bit float is rounded to the nearest one, as PostgreSQL's text
 * input would round it.
 */
export function encodeFloat4Array(values: ArrayLike<number>, element: ArrayElementType): Uint8Array {
  checkElement(element, "float4");
  const count = values.length;
  if (count === 0) return emptyArray(element.oid);
  const bytes = Buffer.allocUnsafe(20 + 8 * count);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  writeArrayHeader(view, element.oid, count);
  for (let index = 0, offset = 20; index < count; index++, offset += 8) {
    view.setInt32(offset, 4);
    view.setFloat32(offset + 4, values[index]!);
  }
  return bytes;
}

/**
 * `count` vectors of `dimensions` numbers each, laid end to end in `flat`, as a one-dimensional `vector[]` in
 * PostgreSQL's binary array format: the array's header, then each element as its length and pgvector's binary form
 * (`vector_recv`: the dimension count as a 16-bit integer, 16 unused bits, then each number as a big-endian 32-bit
 * float). PostgreSQL reads each element with one call instead of one per number, as a `real[]` would need.
 */
export function encodeVectorArray(flat: Float32Array, dimensions: number, element: ArrayElementType): Uint8Array {
  checkElement(element, "vector");
  const count = dimensions === 0 ? 0 : flat.length / dimensions;
  if (count === 0) return emptyArray(element.oid);
  const elementBytes = 4 + 4 * dimensions;
  const bytes = Buffer.allocUnsafe(20 + (4 + elementBytes) * count);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  writeArrayHeader(view, element.oid, count);
  let offset = 20;
  for (let row = 0; row < count; row++) {
    view.setInt32(offset, elementBytes);
    view.setInt16(offset + 4, dimensions);
    view.setInt16(offset + 6, 0);
    offset += 8;
    for (let index = row * dimensions, end = index + dimensions; index < end; index++, offset += 4)
      view.setFloat32(offset, flat[index]!);
  }
  return bytes;
}

/**
 * Bind (to the unnamed portal; parameters in text format, except those given
 * as bytes, which go in binary; every result in text format), Describe,
 * Execute and Sync for the prepared statement `statement` with `values`
 * (null is SQL NULL).
 */
export function encodeExecution(statement: string, values: readonly (string | Uint8Array | null)[]): Uint8Array {
  if (values.length > 0xffff)
    throw new Error(`a statement takes at most 65535 parameters; this one has ${values.length}`);
  const lengths = values.map((value) =>
    value === null ? -1 : typeof value === "string" ? Buffer.byteLength(value, "utf8") : value.byteLength,
  );
  const anyBinary = values.some((value) => value instanceof Uint8Array);
  const statementBytes = Buffer.byteLength(statement, "utf8");
  // Length field, portal "" (1), statement name and its NUL, format codes (count and one per parameter when any is binary), parameter count (2), no result formats (2).
  let bindLength = 4 + 1 + statementBytes + 1 + 2 + (anyBinary ? 2 * values.length : 0) + 2 + 2;
  for (const length of lengths) bindLength += 4 + Math.max(0, length);
  const message = Buffer.allocUnsafe(1 + bindLength + tail.length);
  let offset = message.writeUInt8(0x42, 0); // Bind 'B'
  offset = message.writeInt32BE(bindLength, offset);
  offset = message.writeUInt8(0, offset); // portal ""
  offset += message.write(statement, offset, "utf8");
  offset = message.writeUInt8(0, offset);
  if (anyBinary) {
    offset = message.writeInt16BE(values.length, offset);
    for (const value of values) offset = message.writeInt16BE(value instanceof Uint8Array ? 1 : 0, offset);
  } else {
    offset = message.writeInt16BE(0, offset); // no format codes: every parameter is text
  }
  offset = message.writeInt16BE(values.length, offset);
  values.forEach((value, index) => {
    const length = lengths[index]!;
    offset = message.writeInt32BE(length, offset);
    if (typeof value === "string") offset += message.write(value, offset, "utf8");
    else if (value !== null) {
      message.set(value, offset);
      offset += value.byteLength;
    }
  });
  offset = message.writeInt16BE(0, offset); // no result format codes: every column is text
  tail.copy(message, offset);
  return message;
}
