import { test } from "node:test";
import assert from "node:assert/strict";
import { fromVectorColumn, toVectorLiteral, toVectorsParam } from "./vector-literal.js";

test("every 32-bit float reads back exactly from its literal, in both literal forms", () => {
  const words = new Uint32Array(200_000);
  let state = 0x2545f491;
  for (let index = 0; index < words.length; index++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    words[index] = state >>> 0;
  }
  // Every bit pattern that is a finite float: tiny, huge, subnormal and negative ones too.
  const floats = Float32Array.from(new Float32Array(words.buffer).filter(Number.isFinite));
  assert.ok(floats.length > 190_000);
  const literal = toVectorLiteral("real[]", floats);
  assert.ok(literal.startsWith("{") && literal.endsWith("}"));
  const readBack = literal
    .slice(1, -1)
    .split(",")
    .map((text) => Math.fround(Number(text)));
  assert.deepEqual(readBack, Array.from(floats));
  // pgvector's own parser reads the `vector` form back to the same floats.
  assert.deepEqual(fromVectorColumn(toVectorLiteral("pgvector", floats)), floats);
  // No number takes more than nine significant digits (plus sign, point and exponent).
  const digits = (text: string) =>
    text
      .replace(/[{}-]|e.*$/g, "")
      .replace(".", "")
      .replace(/^0+|0+$/g, "").length;
  assert.deepEqual(
    literal.split(",").filter((text) => digits(text) > 9),
    [],
  );
});

test("literals are pgvector's text form, in brackets for `vector` and braces for `real[]`", () => {
  assert.equal(toVectorLiteral("pgvector", [0.5, -0.25, 3]), "[0.5,-0.25,3]");
  assert.equal(toVectorLiteral("real[]", new Float32Array([0.1, 1e-7])), "{0.100000001,1.00000001e-7}");
  assert.equal(toVectorLiteral("real[]", []), "{}");
});

test("a value that is not a finite number is refused, naming where it is", () => {
  assert.throws(() => toVectorLiteral("pgvector", [1, Number.NaN]), /vector value 1 is NaN, not a finite number/);
  assert.throws(() => toVectorLiteral("real[]", [Number.POSITIVE_INFINITY]), /vector value 0 is Infinity/);
  assert.throws(
    () => toVectorLiteral("pgvector", new Float32Array([2, 3, Number.NEGATIVE_INFINITY])),
    /vector value 2 is -Infinity/,
  );
});

test("a column's value reads the same from pgvector's text form as from the array a server's type parser made", () => {
  assert.deepEqual(fromVectorColumn("[0.5,-0.25,3]"), new Float32Array([0.5, -0.25, 3]));
  assert.deepEqual(fromVectorColumn([0.5, -0.25, 3]), new Float32Array([0.5, -0.25, 3]));
});

test("vectors laid end to end as one real[] parameter: the same floats in binary and in text, every dimension checked", () => {
  const vectors = [new Float32Array([0.1, -2.5, 1e-7]), [0.5, 3.4028234663852886e38, -1.401298464324817e-45]];
  const { value, dimensions } = toVectorsParam(vectors);
  assert.equal(dimensions, 3);
  const flat = Float32Array.from(vectors.flatMap((vector) => Array.from(vector)));
  const binary = Buffer.from(value.toPostgresBinary());
  // One dimension, no nulls, float4, six elements from 1; then each element's length and its big-endian bits.
  assert.deepEqual(
    [0, 4, 8, 12, 16].map((offset) => binary.readInt32BE(offset)),
    [1, 0, 700, 6, 1],
  );
  assert.equal(binary.length, 20 + 8 * 6);
  const fromBinary = Array.from({ length: 6 }, (_, index) => {
    assert.equal(binary.readInt32BE(20 + 8 * index), 4);
    return binary.readFloatBE(24 + 8 * index);
  });
  assert.deepEqual(Float32Array.from(fromBinary), flat);
  const text = value.toPostgres();
  assert.match(text, /^\{[^{}]+\}$/);
  assert.deepEqual(Float32Array.from(text.slice(1, -1).split(",").map(Number)), flat);
  assert.deepEqual(toVectorsParam([]).dimensions, 0);
  assert.throws(
    () =>
      toVectorsParam([
        [1, 2],
        [1, 2, 3],
      ]),
    /vector 1 has 3 dimensions; vector 0 has 2/,
  );
  assert.throws(
    () =>
      toVectorsParam([
        [1, 2],
        [Number.NaN, 2],
      ]),
    /vector 1 value 0 is NaN, not a finite 32-bit float/,
  );
  assert.throws(() => toVectorsParam([[1e39]]), /vector 0 value 0 is 1e\+39, not a finite 32-bit float/);
});
