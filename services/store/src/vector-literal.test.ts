import { test } from "node:test";
import assert from "node:assert/strict";
import { toVectorLiteral } from "./vector-literal.js";

test("every 32-bit float reads back exactly from its nine digits, in both literal forms", () => {
  const words = new Uint32Array(200_000);
  let state = 0x2545f491;
  for (let index = 0; index < words.length; index++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    words[index] = state >>> 0;
  }
  // Every bit pattern that is a finite float: tiny, huge, subnormal and negative ones too.
  const floats = Array.from(new Float32Array(words.buffer)).filter(Number.isFinite);
  assert.ok(floats.length > 190_000);
  const literal = toVectorLiteral("real[]", floats);
  assert.ok(literal.startsWith("{") && literal.endsWith("}"));
  const readBack = literal
    .slice(1, -1)
    .split(",")
    .map((text) => Math.fround(Number(text)));
  assert.deepEqual(readBack, floats);
  assert.equal(toVectorLiteral("pgvector", [0.5, -0.25, 3]), "[0.500000000,-0.250000000,3.00000000]");
  assert.equal(toVectorLiteral("real[]", []), "{}");
});
