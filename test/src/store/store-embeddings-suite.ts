/**
 * The chunks' embeddings a write stores are exactly the 32-bit floats it was
 * given, each at its own chunk: PGlite is sent them in binary, a PostgreSQL
 * server as text, and both must store the same numbers in the same rows.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { vectorToBytes } from "@context-hub/common";
import { dimension, generatedFor, newTenant, principal, textEntry, type StoreSuiteContext } from "./store-fixtures.js";

/** `count` vectors of `dimension` finite floats from every range a float can take (tiny, subnormal, huge, negative), seeded. */
function awkwardVectors(count: number, seed: number): Float32Array[] {
  const words = new Uint32Array(1);
  const floats = new Float32Array(words.buffer);
  let state = seed;
  return Array.from({ length: count }, () => {
    const vector = new Float32Array(dimension);
    for (let index = 0; index < dimension; ) {
      state ^= state << 13;
      state ^= state >>> 17;
      state ^= state << 5;
      words[0] = state >>> 0;
      if (Number.isFinite(floats[0]!)) vector[index++] = floats[0]!;
    }
    return vector;
  });
}

/** `text` cut into `count` chunks of equal length, chunk `k` carrying `vectors[k]`. */
function chunked(text: string, vectors: readonly Float32Array[]) {
  const size = text.length / vectors.length;
  const chunks = vectors.map((vector, ordinal) => ({
    ordinal,
    span: { start: ordinal * size, end: (ordinal + 1) * size },
    vector: vectorToBytes(vector),
  }));
  return generatedFor(text, { chunks });
}

export function defineEmbeddingTests(context: StoreSuiteContext): void {
  describe("stored embeddings", () => {
    /** Each chunk of `entryId` in ordinal order: its span and its embedding's floats as PostgreSQL prints them. */
    async function storedChunks(entryId: string) {
      const { rows } = await context.db.query<{
        ordinal: number;
        start_offset: number;
        end_offset: number;
        floats: string;
      }>(
        "SELECT ordinal, start_offset, end_offset, embedding::real[]::text AS floats FROM chunks WHERE entry_id = $1 ORDER BY ordinal",
        [entryId],
      );
      return rows.map((row) => ({
        ordinal: row.ordinal,
        span: [row.start_offset, row.end_offset],
        vector: Float32Array.from(row.floats.slice(1, -1).split(",").map(Number)),
      }));
    }

    const expected = (text: string, vectors: readonly Float32Array[]) => {
      const size = text.length / vectors.length;
      return vectors.map((vector, ordinal) => ({ ordinal, span: [ordinal * size, (ordinal + 1) * size], vector }));
    };

    test("a commit and a text update store each chunk's floats exactly, at its own chunk", async () => {
      const caller = principal(newTenant("embeddings"), "a1");
      const first = "Gauges drift after rain. ".repeat(240);
      const firstVectors = awkwardVectors(60, 0x2545f491);
      const ack = (
        await context.client.commit({
          principal: caller,
          entry: textEntry("t", first),
          generated: chunked(first, firstVectors),
        })
      ).ack!;
      assert.deepEqual(await storedChunks(ack.id), expected(first, firstVectors), "committed");

      // A changed text replaces the chunks through the update's own statement.
      const second = "Loggers were synchronised. ".repeat(150);
      const secondVectors = awkwardVectors(25, 0x9e3779b9);
      const updated = await context.client.updateEntries({
        principal: caller,
        atomic: true,
        updates: [{ id: ack.id, expectedVersion: 1, text: second, generated: chunked(second, secondVectors) }],
      });
      assert.equal(updated.results[0]?.ack?.version, 2);
      assert.deepEqual(await storedChunks(ack.id), expected(second, secondVectors), "updated");
    });
  });
}
