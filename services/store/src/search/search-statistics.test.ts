import { test } from "node:test";
import assert from "node:assert/strict";
import { createLogger, type Logger } from "@context-hub/common";
import { waitFor } from "@context-hub/common/testing";
import { openDatabase } from "../db/open-database.js";
import type { SqlDatabase } from "../db/sql-database.js";
import { defaultSearchConfig } from "./search-config.js";
import { openSearch } from "./search-module.js";
import { createStatisticsMaintenance, isStale, type StatisticsMaintenance } from "./search-statistics.js";

const never = { recordedTuples: -1, recordedPages: 0, analysed: false };

/** Runs `test` on a migrated in-memory store with statistics maintenance (checking every `checkIntervalMs`), closing both after. */
async function withMemoryStore(
  checkIntervalMs: number | undefined,
  test: (store: { db: SqlDatabase; statistics: StatisticsMaintenance; logger: Logger }) => Promise<void>,
): Promise<void> {
  const logger = createLogger("statistics-test", "silent");
  const db = await openDatabase({ url: "", dataDir: "memory://", poolMax: 1 }, logger);
  const statistics = createStatisticsMaintenance(db, logger, checkIntervalMs);
  try {
    await test({ db, statistics, logger });
  } finally {
    await statistics.close();
    await db.close();
  }
}

/** `count` entries of about a kilobyte each, straight into the table. */
async function insertKilobyteEntries(db: SqlDatabase, count: number): Promise<void> {
  await db.query(
    `INSERT INTO entries (id, tenant, thread_id, source, owner, text, text_length, preview, content_hash)
     SELECT gen_random_uuid(), 'acme', 'thread-' || (n % 50), 'agent', 'alice', repeat('x', 1000) || n, 1000 + length(n::text), 'x', md5(n::text) || md5(n::text)
     FROM generate_series(1, $1::integer) AS n`,
    [count],
  );
}

test("a table is analysed when never analysed, or when its size drifted by more than a fifth (and 128 pages)", () => {
  assert.equal(isStale({ ...never, pages: 128 }), true, "never analysed");
  assert.equal(
    isStale({ recordedTuples: 1e5, recordedPages: 10_000, pages: 12_000, analysed: true }),
    false,
    "20% is within bounds",
  );
  assert.equal(isStale({ recordedTuples: 1e5, recordedPages: 10_000, pages: 12_001, analysed: true }), true);
  assert.equal(
    isStale({ recordedTuples: 1e5, recordedPages: 10_000, pages: 7_999, analysed: true }),
    true,
    "shrinking counts too",
  );
});

test("a table smaller than a megabyte is not analysed on its own: its statistics would mislead the planner", () => {
  assert.equal(isStale({ ...never, pages: 0 }), false, "an empty table, never analysed");
  assert.equal(isStale({ ...never, pages: 127 }), false, "a small one");
  assert.equal(
    isStale({ recordedTuples: 3, recordedPages: 1, pages: 127, analysed: true }),
    false,
    "one analysed small before stays as it is until it grows",
  );
  assert.equal(
    isStale({ recordedTuples: 1e5, recordedPages: 10_000, pages: 100, analysed: true }),
    false,
    "one that shrank keeps the statistics of its larger self",
  );
});

test("beside a table with statistics, every table that holds rows is analysed, whatever its size", () => {
  assert.equal(isStale({ ...never, pages: 3 }, true), true, "a peer has statistics");
  assert.equal(isStale({ ...never, pages: 0 }, true), false, "nothing to sample");
  assert.equal(
    isStale({ recordedTuples: 40, recordedPages: 3, pages: 3, analysed: false }),
    true,
    "an index build recorded its size, but no ANALYZE sampled it",
  );
  assert.equal(
    isStale({ recordedTuples: 40, recordedPages: 3, pages: 3, analysed: true }, true),
    false,
    "analysed already",
  );
});

test("a new store is not analysed at start; its entries are, once they pass a megabyte", async () => {
  await withMemoryStore(undefined, async ({ db, statistics }) => {
    const analysed = async () =>
      (
        await db.query<{ tuples: number }>(
          "SELECT reltuples AS tuples FROM pg_class WHERE relname = 'entries' AND relnamespace = 'public'::regnamespace",
        )
      ).rows[0]?.tuples;
    assert.deepEqual(await statistics.refresh(), [], "nothing to sample in an empty store");
    assert.equal(await analysed(), -1, "the planner goes by the table's size on disk");
    await insertKilobyteEntries(db, 1500);
    assert.deepEqual(await statistics.refresh(), ["entries"], "1,500 one-kilobyte entries pass a megabyte");
    assert.equal(await analysed(), 1500);
  });
});

test("a running store analyses its entries at the next periodic check once they pass a megabyte", async () => {
  await withMemoryStore(50, async ({ db, statistics }) => {
    const analysed = async () =>
      (
        await db.query<{ analysed: boolean }>(
          "SELECT EXISTS (SELECT 1 FROM pg_stats WHERE schemaname = 'public' AND tablename = 'entries') AS analysed",
        )
      ).rows[0]?.analysed;
    await statistics.refresh();
    await insertKilobyteEntries(db, 1500);
    // No refresh is called: the timer's check finds the grown table.
    await waitFor(analysed, { what: "the periodic check to analyse the grown entries table" });
  });
});

test("an HNSW index build leaves every table it is planned with analysed, even below a megabyte", async () => {
  await withMemoryStore(undefined, async ({ db, statistics, logger }) => {
    const recorded = async () =>
      (
        await db.query<{ name: string; tuples: number; analysed: boolean }>(
          `SELECT c.relname AS name, c.reltuples AS tuples, EXISTS (SELECT 1 FROM pg_stats s WHERE s.schemaname = 'public' AND s.tablename = c.relname) AS analysed
         FROM pg_class c WHERE c.relname IN ('entries', 'chunks') AND c.relnamespace = 'public'::regnamespace ORDER BY c.relname`,
        )
      ).rows;
    await db.query(
      `INSERT INTO entries (id, tenant, thread_id, source, owner, text, text_length, preview, content_hash)
       SELECT gen_random_uuid(), 'acme', 'thread-' || (n % 5), 'agent', 'alice', 'note ' || n, 5 + length(n::text), 'x', md5(n::text) || md5(n::text)
       FROM generate_series(1, 40) AS n`,
    );
    await db.query(
      `INSERT INTO chunks (id, entry_id, tenant, ordinal, start_offset, end_offset, embedding_model, embedding)
       SELECT gen_random_uuid(), e.id, e.tenant, 0, 0, 5, 'statistics-test', ('[' || (random() + 0.1) || ',' || random() || ',' || random() || ']')::vector FROM entries e`,
    );
    assert.deepEqual(await statistics.refresh(), [], "forty entries are left to the planner's size estimate");
    assert.deepEqual(
      (await recorded()).map((row) => [row.name, row.tuples, row.analysed]),
      [
        ["chunks", -1, false],
        ["entries", -1, false],
      ],
    );

    // A search's start-up with indexes wanted from the first chunk builds the space's index, which records the size of
    // chunks; the statistics are refreshed right after, so entries is not planned from nothing beside it.
    const search = await openSearch(
      db,
      { ...defaultSearchConfig, vectors: { ...defaultSearchConfig.vectors, exactBelowChunks: 1 } },
      logger,
    );
    await search.close();
    assert.deepEqual(
      (await recorded()).map((row) => [row.name, row.tuples, row.analysed]),
      [
        ["chunks", 40, true],
        ["entries", 40, true],
      ],
    );
  });
});
