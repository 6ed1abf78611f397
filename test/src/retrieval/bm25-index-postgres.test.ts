// A tenant's BM25 index needs pg_textsearch, which a PostgreSQL server loads only when it is installed and preloaded;
// the embedded server here has none of it, so this is what a deployment without it sees.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createLogger } from "@context-hub/common";
import { openDatabase } from "@context-hub/store";
import { defaultSearchConfig, openSearch } from "@context-hub/store/testing";
import { startTestPostgres } from "../support/postgres.js";

const logger = createLogger("bm25-index-postgres", "silent");
const withIndexes = (mode: "bm25" | "auto") => ({
  ...defaultSearchConfig,
  bm25Indexes: { mode, minEntries: 1, checkMs: 0 },
});

test("on a server without pg_textsearch, bm25 stops the store naming the variable; auto ranks in SQL", async () => {
  const server = await startTestPostgres();
  const db = await openDatabase({ url: server.url, dataDir: "", poolMax: 2 }, logger);
  try {
    await assert.rejects(
      openSearch(db, withIndexes("bm25"), logger),
      /STORE_FULL_TEXT_INDEX=bm25 needs the pg_textsearch extension, and this database cannot load it: .+/,
    );
    const search = await openSearch(db, withIndexes("auto"), logger);
    try {
      assert.equal(search.bm25Indexes.engine, "gin");
      const { rows } = await db.query("SELECT count(*)::int AS n FROM bm25_indexes");
      assert.deepEqual(rows, [{ n: 0 }], "nothing was built");
    } finally {
      await search.close();
    }
    const plain = await openSearch(db, defaultSearchConfig, logger);
    assert.equal(plain.bm25Indexes.engine, "gin", "positive control: the default never asks for it");
    await plain.close();
  } finally {
    await db.close();
    await server.close();
  }
});
