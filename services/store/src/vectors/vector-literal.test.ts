import { test } from "node:test";
import assert from "node:assert/strict";
import { PGlite } from "@electric-sql/pglite";
import { vector as pgvector } from "@electric-sql/pglite-pgvector";
import { createPgliteStatements } from "../db/pglite-statements.js";
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

const float4 = { oid: 700, name: "float4" };
const vector = { oid: 91_234, name: "vector" };

test("vectors as one flat real[] parameter: the same floats in binary and in text, every dimension checked", () => {
  const vectors = [new Float32Array([0.1, -2.5, 1e-7]), [0.5, 3.4028234663852886e38, -1.401298464324817e-45]];
  const { value, dimensions, arrayType } = toVectorsParam("real[]", vectors);
  assert.equal(dimensions, 3);
  assert.equal(arrayType, "real[]");
  const flat = Float32Array.from(vectors.flatMap((vector) => Array.from(vector)));
  const binary = Buffer.from(value.toPostgresBinary(float4));
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
  assert.throws(
    () => value.toPostgresBinary(vector),
    /a binary float4\[\] parameter where the statement expects vector\[\]/,
  );
});

test("vectors as one vector[] parameter: one element per vector, the same floats in binary and in text", () => {
  const vectors = [new Float32Array([0.1, -2.5, 1e-7]), [0.5, 3.4028234663852886e38, -1.401298464324817e-45]];
  const { value, dimensions, arrayType } = toVectorsParam("pgvector", vectors);
  assert.equal(dimensions, 3);
  assert.equal(arrayType, "vector[]");
  const binary = Buffer.from(value.toPostgresBinary(vector));
  // One dimension, no nulls, the element type given, two elements from 1.
  assert.deepEqual(
    [0, 4, 8, 12, 16].map((offset) => binary.readInt32BE(offset)),
    [1, 0, 91_234, 2, 1],
  );
  // Each element: its length, pgvector's dimension count and unused bits, then the numbers big-endian.
  const elementBytes = 4 + 4 * 3;
  assert.equal(binary.length, 20 + 2 * (4 + elementBytes));
  vectors.forEach((expected, row) => {
    const at = 20 + row * (4 + elementBytes);
    assert.equal(binary.readInt32BE(at), elementBytes);
    assert.equal(binary.readInt16BE(at + 4), 3);
    assert.equal(binary.readInt16BE(at + 6), 0);
    const numbers = [0, 1, 2].map((index) => binary.readFloatBE(at + 8 + 4 * index));
    assert.deepEqual(Float32Array.from(numbers), Float32Array.from(expected));
  });
  const text = value.toPostgres();
  const elements = /^\{"\[([^\]]+)\]","\[([^\]]+)\]"\}$/.exec(text);
  assert.ok(elements, text);
  vectors.forEach((expected, row) =>
    assert.deepEqual(Float32Array.from(elements[row + 1]!.split(",").map(Number)), Float32Array.from(expected)),
  );
  assert.throws(
    () => value.toPostgresBinary(float4),
    /a binary vector\[\] parameter where the statement expects float4\[\]/,
  );
  assert.throws(
    () => value.toPostgresBinary({ oid: 0, name: "" }),
    /a binary vector\[\] parameter where the statement expects no array/,
  );
  const empty = toVectorsParam("pgvector", []);
  assert.equal(empty.dimensions, 0);
  assert.equal(empty.value.toPostgres(), "{}");
  assert.deepEqual(
    [0, 4, 8].map((offset) => Buffer.from(empty.value.toPostgresBinary(vector)).readInt32BE(offset)),
    [0, 0, 91_234],
  );
});

for (const type of ["pgvector", "real[]"] as const)
  test(`vectors of different lengths or with a value that is not a finite 32-bit float are refused (${type})`, () => {
    assert.deepEqual(toVectorsParam(type, []).dimensions, 0);
    assert.throws(
      () =>
        toVectorsParam(type, [
          [1, 2],
          [1, 2, 3],
        ]),
      /vector 1 has 3 dimensions; vector 0 has 2/,
    );
    assert.throws(
      () =>
        toVectorsParam(type, [
          [1, 2],
          [Number.NaN, 2],
        ]),
      /vector 1 value 0 is NaN, not a finite 32-bit float/,
    );
    assert.throws(() => toVectorsParam(type, [[1e39]]), /vector 0 value 0 is 1e\+39, not a finite 32-bit float/);
  });

test("vectors reach pgvector as one binary vector[], each element the floats it was given; a binary array where the statement expects another type is refused by name", async () => {
  const withVector = await PGlite.create({ extensions: { vector: pgvector } });
  try {
    await withVector.exec("CREATE EXTENSION vector");
    const run = createPgliteStatements(withVector).run;
    const vectors = [
      [0.1, -2.5, 1e-7],
      [3.4028234663852886e38, 1.401298464324817e-45, -7.5],
    ];
    const { rows } = await run<{ k: number; v: string }>(
      undefined,
      "SELECT c.k::integer AS k, c.v::text AS v FROM unnest($1::vector[]) WITH ORDINALITY AS c (v, k) ORDER BY c.k",
      [toVectorsParam("pgvector", vectors).value],
    );
    assert.deepEqual(
      rows.map((row) => Float32Array.from(row.v.slice(1, -1).split(",").map(Number))),
      vectors.map((numbers) => Float32Array.from(numbers)),
    );
    // VALUES is not prepared: PGlite's own query is given the text form.
    const viaText = await run<{ column1: string[] }>(
      undefined,
      "VALUES ((SELECT array_agg(v::text) FROM unnest($1::vector[]) v))",
      [toVectorsParam("pgvector", vectors).value],
    );
    assert.deepEqual(
      viaText.rows[0]!.column1.map((text) => Float32Array.from(text.slice(1, -1).split(",").map(Number))),
      vectors.map((numbers) => Float32Array.from(numbers)),
    );
    await assert.rejects(
      run(undefined, "SELECT cardinality($1::real[]) AS n", [toVectorsParam("pgvector", vectors).value]),
      /a binary vector\[\] parameter where the statement expects float4\[\]/,
    );
    await assert.rejects(
      run(undefined, "SELECT $1::text AS n", [toVectorsParam("real[]", vectors).value]),
      /a binary float4\[\] parameter where the statement expects no array/,
    );
  } finally {
    await withVector.close();
  }
});
