import { test } from "node:test";
import assert from "node:assert/strict";
import { fromVectorColumn, toVectorLiteral } from "./vector-literal.js";

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
  assert.throws(() => toVectorLiteral("pgvector", new Float32Array([2, 3, Number.NEGATIVE_INFINITY])), /vector value 2 is -Infinity/);
});

test("a column's value reads the same from pgvector's text form as from the array a server's type parser made", () => {
  assert.deepEqual(fromVectorColumn("[0.5,-0.25,3]"), new Float32Array([0.5, -0.25, 3]));
  assert.deepEqual(fromVectorColumn([0.5, -0.25, 3]), new Float32Array([0.5, -0.25, 3]));
});
