import { test } from "node:test";
import assert from "node:assert/strict";
import { createLogger } from "@context-hub/common";
import { openDatabase } from "../db/open-database.js";
import {
  maxTermPositions,
  quotedLexemeSql,
  singleTermRank,
  termFrequencyBuckets,
  termFrequencySql,
} from "./bm25-sql.js";

const logger = createLogger("term-frequency-test", "silent");

test("the single-term ranks grow strictly with the frequency, and each lies inside its own bucket", () => {
  assert.equal(termFrequencyBuckets.length, maxTermPositions);
  assert.equal(singleTermRank(0), 0);
  for (let tf = 0; tf <= maxTermPositions + 1; tf++) assert.ok(singleTermRank(tf + 1) > singleTermRank(tf), `tf ${tf}`);
  for (let tf = 0; tf <= maxTermPositions; tf++) {
    if (tf > 0) assert.ok(termFrequencyBuckets[tf - 1]! <= singleTermRank(tf), `lower bucket edge of ${tf}`);
    if (tf < maxTermPositions) assert.ok(singleTermRank(tf) < termFrequencyBuckets[tf]!, `upper bucket edge of ${tf}`);
  }
});

test("PostgreSQL's own ts_rank reads back as each lexeme's count of positions, for every lexeme of every vector", async () => {
  const db = await openDatabase({ url: "", dataDir: "memory://", poolMax: 1 }, logger);
  try {
    const buckets = "$1::float4[]";
    const frequency = termFrequencySql("v.vector", `(${quotedLexemeSql("u.lexeme", false)})::tsquery`, buckets);
    // Texts of one word repeated up to past the 255 positions to_tsvector keeps, a word past position 16,383 (where
    // positions stop counting), and 300 texts of skewed word counts; weights A and D alike.
    const { rows } = await db.query<{ lexemes: number; differing: number; most: number }>(
      `WITH texts AS (
         SELECT repeat('wing ', n) || 'lift' AS text FROM unnest(ARRAY[1, 2, 3, 7, 50, 255, 256, 257, 400, 1000]) AS n
         UNION ALL SELECT repeat('drag ', 16500) || repeat('shock ', 5)
         UNION ALL
         SELECT string_agg((ARRAY['wing', 'lift', 'drag', 'nozzle', 'flutter', 'layer', 'shock', 'mach'])[1 + (floor(8 * random() ^ 3))::int], ' ')
         FROM generate_series(1, 300) AS d CROSS JOIN LATERAL generate_series(1, 1 + d % 97 * (1 + d % 5)) AS k
         GROUP BY d
       ), vectors AS (
         SELECT to_tsvector('english', t.text) AS vector FROM texts t
         UNION ALL SELECT setweight(to_tsvector('english', t.text), 'A') FROM texts t
       )
       SELECT count(*)::integer AS lexemes,
              count(*) FILTER (WHERE ${frequency} IS DISTINCT FROM cardinality(u.positions))::integer AS differing,
              max(cardinality(u.positions))::integer AS most
       FROM vectors v CROSS JOIN LATERAL unnest(v.vector) u`,
      [[...termFrequencyBuckets]],
    );
    const [result] = rows;
    assert.ok(result !== undefined && result.lexemes > 2_000, `lexemes checked: ${result?.lexemes}`);
    assert.equal(result.most, maxTermPositions - 1, "some lexeme holds as many positions as a vector keeps");
    assert.equal(result.differing, 0);
    // A lexeme the vector does not hold counts 0.
    const { rows: absent } = await db.query<{ tf: number }>(
      `SELECT ${termFrequencySql("to_tsvector('english', 'wing lift')", "'nozzl'::tsquery", buckets)} AS tf`,
      [[...termFrequencyBuckets]],
    );
    assert.equal(absent[0]?.tf, 0);
  } finally {
    await db.close();
  }
});
