import { test } from "node:test";
import assert from "node:assert/strict";
import { createLogger } from "@context-hub/common";
import { openDatabase } from "../db/open-database.js";
import { createSqlParams, type SqlDatabase } from "../db/sql-database.js";
import { emptySearchFilter } from "../model/search-filter.js";
import type { Principal } from "../model/principal.js";
import { defaultSearchConfig } from "./search-config.js";
import { fullTextStatement, tenantMatchFor } from "./full-text-statement.js";
import { tenantShareOf } from "./ranking-statistics.js";
import type { FullTextQuery } from "./bm25-sql.js";
import { openSearch } from "./search-module.js";

const logger = createLogger("tenant-match-test", "silent");

const alice: Principal = { tenant: "big", subject: "alice", groups: [], scopes: ["context:read"] };
const words = ["wing", "lift", "drag", "nozzle", "flutter", "boundary", "layer", "shock"];

/**
 * Tenant `big` holds 180 entries (alice's, bob's private ones, bob's tenant-visible ones), tenant `small` 20, every
 * text built from the same words, so each search matches rows of both tenants and of hidden owners.
 */
async function seed(db: SqlDatabase): Promise<void> {
  await db.query(
    `INSERT INTO entries (id, tenant, thread_id, source, owner, visibility, text, text_length, preview, content_hash)
     SELECT gen_random_uuid(), CASE WHEN n <= 180 THEN 'big' ELSE 'small' END, 'thread-' || (n % 7), 'agent',
            CASE WHEN n % 3 = 0 THEN 'alice' ELSE 'bob' END, CASE WHEN n % 3 = 1 THEN 'private' ELSE 'tenant' END,
            t.text, length(t.text), left(t.text, 40), md5(t.text) || md5(n::text)
     FROM generate_series(1, 200) AS n
     CROSS JOIN LATERAL (
       SELECT string_agg(($1::text[])[1 + ((n * 7 + k * k * 3) % 8)], ' ') AS text FROM generate_series(1, 3 + n % 9) AS k
     ) t`,
    [words],
  );
}

async function withSeededStore(run: (db: SqlDatabase) => Promise<void>): Promise<void> {
  const db = await openDatabase({ url: "", dataDir: "memory://", poolMax: 1 }, logger);
  try {
    await seed(db);
    await run(db);
  } finally {
    await db.close();
  }
}

test("a tenant's share of the entries comes from the planner's statistics, and counts 0 before ANALYZE or when unlisted", async () => {
  await withSeededStore(async (db) => {
    assert.equal(await tenantShareOf(db, "big"), 0);
    await db.query("ANALYZE entries");
    assert.ok(Math.abs((await tenantShareOf(db, "big")) - 0.9) < 1e-6);
    assert.ok(Math.abs((await tenantShareOf(db, "small")) - 0.1) < 1e-6);
    assert.equal(await tenantShareOf(db, "nobody"), 0);
    // A tenant name that needs quoting in an array's text form still finds its share.
    assert.equal(await tenantShareOf(db, 'big", "small'), 0);
  });
});

test("a dominant tenant is tested per row in the ranking, a small one by its index, with the same page either way", async () => {
  await withSeededStore(async (db) => {
    const page = async (mode: FullTextQuery["mode"], share: number) => {
      const params = createSqlParams();
      const collection = { documents: 120, averageLength: 7, tenantShare: share };
      const sql = fullTextStatement(
        alice,
        { mode, text: "wing flutter shock", language: "english" },
        emptySearchFilter,
        { limit: 50, offset: 0 },
        { highlight: false, bm25: defaultSearchConfig.bm25, collection, rankOnly: true },
        params,
      );
      const { rows } = await db.query<{ id: string; score: number }>(sql, params.values);
      return { sql, rows: rows.map((row) => `${row.id} ${Number(row.score).toFixed(9)}`) };
    };
    const { rows: visible } = await db.query<{ id: string }>(
      "SELECT id FROM entries WHERE tenant = 'big' AND (owner = 'alice' OR visibility = 'tenant')",
    );
    const seen = new Set(visible.map((row) => row.id));
    for (const mode of ["any", "match"] as const) {
      const byIndex = await page(mode, 0.1);
      const perRow = await page(mode, 0.9);
      assert.doesNotMatch(byIndex.sql, /\(e\.tenant = \$\d+\) IS TRUE/);
      assert.match(perRow.sql, /\(e\.tenant = \$\d+\) IS TRUE/);
      assert.ok(byIndex.rows.length > 0, `${mode}: the words match some of alice's entries`);
      assert.deepEqual(perRow.rows, byIndex.rows, mode);
      // Neither form lets in tenant small's entries or bob's private ones, though their texts match.
      for (const row of perRow.rows) assert.ok(seen.has(row.split(" ")[0]!), `${mode}: ${row} is not alice's to see`);
    }
  });
});

test("the store's full-text search chooses the form by the caller's tenant's share, once the table is analysed", async () => {
  await withSeededStore(async (db) => {
    await db.query("ANALYZE entries");
    const statements: string[] = [];
    const query = db.query.bind(db);
    db.query = (async (sql: string, values?: unknown[]) => {
      statements.push(sql);
      return query(sql, values);
    }) as typeof db.query;
    const search = await openSearch(db, defaultSearchConfig, logger);
    const rankings = async (principal: Principal) => {
      statements.length = 0;
      await search.service.fullText(principal, {
        query: "wing flutter",
        mode: "any",
        language: "",
        filter: undefined,
        limit: 10,
        offset: 0,
        highlight: false,
      });
      return statements.filter((sql) => sql.includes("page AS ("));
    };
    const big = await rankings(alice);
    assert.ok(big.length > 0 && big.every((sql) => /\(e\.tenant = \$\d+\) IS TRUE/.test(sql)));
    const small = await rankings({ ...alice, tenant: "small" });
    assert.ok(small.length > 0 && small.every((sql) => !/\(e\.tenant = \$\d+\) IS TRUE/.test(sql)));
    assert.equal(tenantMatchFor(undefined), "indexed");
    await search.close();
  });
});
