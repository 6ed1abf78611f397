import { test } from "node:test";
import assert from "node:assert/strict";
import { createLogger } from "@context-hub/common";
import { openDatabase } from "../db/open-database.js";
import { createSqlParams } from "../db/sql-database.js";
import { termPositionsCte, termsInSql } from "./bm25-sql.js";

const logger = createLogger("bm25-sql-test", "silent");

test("a stored vector's terms are found by their index into the lexemes, the first of a repeated one, with their frequencies", async () => {
  const db = await openDatabase({ url: "", dataDir: "memory://", poolMax: 1 }, logger);
  try {
    const params = createSqlParams();
    const lexemes = `${params.add(["wing", "lift", "wing", "it's", "drag"])}::text[]`;
    const vector = `to_tsvector('simple', ${params.add("drag lift lift wing it's nozzle lift")})`;
    const { rows } = await db.query<{ term: number; tf: number }>(
      `WITH ${termPositionsCte(lexemes)}
       SELECT f.term, f.tf FROM (${termsInSql(vector, { lexemes, positions: "(SELECT tp.positions FROM term_positions tp)" }, false)}) f
       ORDER BY f.term`,
      params.values,
    );
    // "it's" is two lexemes under 'simple' ("it", "s"), so it is not one of the vector's; "nozzle" is no term.
    assert.deepEqual(
      rows.map((row) => [Number(row.term), Number(row.tf)]),
      [
        [1, 1],
        [2, 3],
        [5, 1],
      ],
    );
    const empty = await db.query<{ positions: object }>(
      `WITH ${termPositionsCte("ARRAY[]::text[]")} SELECT tp.positions FROM term_positions tp`,
    );
    assert.deepEqual(empty.rows[0]?.positions, {});
  } finally {
    await db.close();
  }
});
