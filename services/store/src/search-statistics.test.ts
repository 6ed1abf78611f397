import { test } from "node:test";
import assert from "node:assert/strict";
import { createLogger } from "@context-hub/common";
import { openDatabase } from "./db/open-database.js";
import { createStatisticsMaintenance, isStale } from "./search-statistics.js";

test("a table is analysed when never analysed, or when its size drifted by more than a fifth (and 128 pages)", () => {
  assert.equal(isStale({ recordedTuples: -1, recordedPages: 0, pages: 128 }), true, "never analysed");
  assert.equal(isStale({ recordedTuples: 0, recordedPages: 0, pages: 100 }), false, "a small store is left alone");
  assert.equal(isStale({ recordedTuples: 0, recordedPages: 0, pages: 129 }), true);
  assert.equal(isStale({ recordedTuples: 1e5, recordedPages: 10_000, pages: 12_000 }), false, "20% is within bounds");
  assert.equal(isStale({ recordedTuples: 1e5, recordedPages: 10_000, pages: 12_001 }), true);
  assert.equal(isStale({ recordedTuples: 1e5, recordedPages: 10_000, pages: 7_999 }), true, "shrinking counts too");
});

test("a table smaller than a megabyte is never analysed: its statistics would mislead the planner", () => {
  assert.equal(isStale({ recordedTuples: -1, recordedPages: 0, pages: 0 }), false, "an empty table, never analysed");
  assert.equal(isStale({ recordedTuples: -1, recordedPages: 0, pages: 127 }), false, "a small one");
  assert.equal(isStale({ recordedTuples: 3, recordedPages: 1, pages: 127 }), false, "one analysed small before stays as it is until it grows");
  assert.equal(isStale({ recordedTuples: 1e5, recordedPages: 10_000, pages: 100 }), false, "one that shrank keeps the statistics of its larger self");
});

test("a new store is not analysed at start; its entries are, once they pass a megabyte", async () => {
  const logger = createLogger("statistics-test", "silent");
  const db = await openDatabase({ url: "", dataDir: "memory://", poolMax: 1 }, logger);
  const statistics = createStatisticsMaintenance(db, logger);
  try {
    const analysed = async () => (await db.query<{ tuples: number }>("SELECT reltuples AS tuples FROM pg_class WHERE relname = 'entries' AND relnamespace = 'public'::regnamespace")).rows[0]?.tuples;
    assert.deepEqual(await statistics.refresh(), [], "nothing to sample in an empty store");
    assert.equal(await analysed(), -1, "the planner goes by the table's size on disk");
    await db.query(
      `INSERT INTO entries (id, tenant, thread_id, source, owner, text, text_length, preview, content_hash)
       SELECT gen_random_uuid(), 'acme', 'thread-' || (n % 50), 'agent', 'alice', repeat('x', 1000) || n, 1000 + length(n::text), 'x', md5(n::text) || md5(n::text)
       FROM generate_series(1, 1500) AS n`,
    );
    assert.deepEqual(await statistics.refresh(), ["entries"], "1,500 one-kilobyte entries pass a megabyte");
    assert.equal(await analysed(), 1500);
  } finally {
    await statistics.close();
    await db.close();
  }
});
