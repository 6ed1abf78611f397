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

/**
 * Bind (to the unnamed portal; every parameter and result in text format),
 * Describe, Execute and Sync for the prepared statement `statement` with
 * `values` (null is SQL NULL).
 */
export function encodeExecution(statement: string, values: readonly (string | null)[]): Uint8Array {
  if (values.length > 0xffff) throw new Error(`a statement takes at most 65535 parameters; this one has ${values.length}`);
  const lengths = values.map((value) => (value === null ? -1 : Buffer.byteLength(value, "utf8")));
  const statementBytes = Buffer.byteLength(statement, "utf8");
  // Length field, portal "" (1), statement name and its NUL, no format codes (2), parameter count (2), no result formats (2).
  let bindLength = 4 + 1 + statementBytes + 1 + 2 + 2 + 2;
  for (const length of lengths) bindLength += 4 + Math.max(0, length);
  const message = Buffer.allocUnsafe(1 + bindLength + tail.length);
  let offset = message.writeUInt8(0x42, 0); // Bind 'B'
  offset = message.writeInt32BE(bindLength, offset);
  offset = message.writeUInt8(0, offset); // portal ""
  offset += message.write(statement, offset, "utf8");
  offset = message.writeUInt8(0, offset);
  offset = message.writeInt16BE(0, offset); // no format codes: every parameter is text
  offset = message.writeInt16BE(values.length, offset);
  values.forEach((value, index) => {
    const length = lengths[index]!;
    offset = message.writeInt32BE(length, offset);
    if (value !== null) offset += message.write(value, offset, "utf8");
  });
  offset = message.writeInt16BE(0, offset); // no result format codes: every column is text
  tail.copy(message, offset);
  return message;
}
