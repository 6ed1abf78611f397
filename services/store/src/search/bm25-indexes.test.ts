import { test } from "node:test";
import assert from "node:assert/strict";
import { createLogger, metricsRegistry } from "@context-hub/common";
import { openDatabase } from "../db/open-database.js";
import { createSqlParams, type SqlDatabase } from "../db/sql-database.js";
import type { Principal } from "../model/principal.js";
import { emptySearchFilter } from "../model/search-filter.js";
import { indexNameOf, openTenantBm25Indexes, queryTokens, type TenantBm25Indexes } from "./bm25-indexes.js";
import { indexedFullTextStatement } from "./bm25-index-statement.js";
import { defaultFeedbackOptions } from "./bm25-feedback.js";
import { indexedRescoreDepth } from "./full-text-feedback.js";
import { defaultSearchConfig } from "./search-config.js";
import { createSearchRepository } from "./search-repository.js";

const logger = createLogger("bm25-indexes-test", "silent");
const ranking = {
  bm25: defaultSearchConfig.bm25,
  statisticsTtlMs: 0,
  candidates: 0,
  termsOneByOne: defaultSearchConfig.bm25TermsOneByOne,
  statisticsSample: defaultSearchConfig.statisticsSample,
};
const settings = { mode: "bm25" as const, minEntries: 20, checkMs: 0 };
const admin = (tenant: string): Principal => ({
  tenant,
  subject: "root",
  groups: [],
  scopes: ["context:read", "context:admin"],
});
const alice: Principal = { tenant: "acme", subject: "alice", groups: [], scopes: ["context:read"] };
const query = { mode: "any" as const, text: "turbulent boundary layer heat transfer", language: "english" };
const page = { limit: 10, offset: 0 };

const vocabulary = [
  "boundary",
  "layer",
  "turbulent",
  "heat",
  "transfer",
  "wing",
  "flow",
  "shock",
  "pressure",
  "nozzle",
];
const filler = ["the", "study", "of", "results", "shows", "measured", "and", "in", "a", "model"];

/** A deterministic note of 8–40 words, mixing the query's words with others at rates that vary by `n`. */
function note(n: number): string {
  const words: string[] = [];
  const length = 8 + ((n * 7) % 33);
  for (let i = 0; i < length; i++) {
    const pick = (n * 31 + i * 17 + ((n * i) % 13)) % 23;
    words.push(pick < vocabulary.length ? vocabulary[(pick + n) % vocabulary.length]! : filler[pick % filler.length]!);
  }
  return words.join(" ");
}

async function insertEntries(
  db: SqlDatabase,
  rows: { tenant: string; owner: string; visibility: string; text: string; trust?: string }[],
): Promise<string[]> {
  const ids: string[] = [];
  for (const row of rows) {
    const { rows: inserted } = await db.query<{ id: string }>(
      `INSERT INTO entries (id, tenant, thread_id, source, owner, visibility, text, text_length, preview, content_hash, trust_state)
       VALUES (gen_random_uuid(), $1, 'thread-1', 'agent', $2, $3, $4, length($4), left($4, 40), md5($4) || md5($4), $5)
       RETURNING id`,
      [row.tenant, row.owner, row.visibility, row.text, row.trust ?? "unverified"],
    );
    ids.push(inserted[0]!.id);
  }
  return ids;
}

/** `count` notes of `tenant`, alice's and visible to the tenant, from the `from`th note on. */
const insertNotes = (db: SqlDatabase, tenant: string, count: number, from = 0) =>
  insertEntries(
    db,
    Array.from({ length: count }, (_, n) => ({ tenant, owner: "alice", visibility: "tenant", text: note(n + from) })),
  );

async function withStore(test: (db: SqlDatabase) => Promise<void>): Promise<void> {
  const db = await openDatabase({ url: "", dataDir: "memory://", poolMax: 1 }, logger);
  try {
    await test(db);
  } finally {
    await db.close();
  }
}

/** How many rankings the index served (`ranked`) or left to SQL (`ranked_in_sql`) so far. */
async function indexedOutcomes(): Promise<Record<string, number>> {
  const metric = metricsRegistry.getSingleMetric("contexthub_store_indexed_rankings_total");
  const values = metric === undefined ? [] : (await metric.get()).values;
  return Object.fromEntries(values.map((value) => [String(value.labels["outcome"]), value.value]));
}

const ranked = async (
  db: SqlDatabase,
  indexes: TenantBm25Indexes | undefined,
  principal: Principal,
  search: { mode: "any" | "match" | "phrase" | "boolean"; text: string; language: string } = query,
) =>
  (
    await createSearchRepository(db, ranking, indexes).fullText(principal, search, emptySearchFilter, page, false, true)
  ).map((row) => ({ id: row.id, score: row.score }));

test("a query's lexemes become one hex token each, repeated as often as the query repeats them", () => {
  assert.equal(
    queryTokens(
      new Map([
        ["cat", 2],
        ["é'x", 1],
      ]),
    ),
    "x636174 x636174 xc3a92778",
  );
  assert.match(indexNameOf("tenant with 'quotes' and spaces"), /^entries_bm25_[0-9a-f]{24}$/);
});

/** The index's pages against BM25 in SQL's for the tenant's admin (who sees the whole tenant), in four modes. */
async function comparesWithSql(db: SqlDatabase, indexes: TenantBm25Indexes): Promise<void> {
  const inIndex = await ranked(db, indexes, admin("acme"));
  const inSql = await ranked(db, undefined, admin("acme"));
  assert.equal(inIndex.length, 10);
  assert.deepEqual(
    inIndex.map((row) => row.id),
    inSql.map((row) => row.id),
    "the same page in the same order",
  );
  for (const [i, row] of inIndex.entries())
    assert.ok(
      Math.abs(row.score - inSql[i]!.score) <= 1e-5 * inSql[i]!.score,
      `score ${i}: ${row.score} against ${inSql[i]!.score}`,
    );
  for (const search of [
    { mode: "match" as const, text: "boundary layer", language: "english" },
    { mode: "phrase" as const, text: "heat transfer", language: "english" },
    { mode: "boolean" as const, text: "turbulent OR nozzle -shock", language: "english" },
    // Three entries hold both: the index's best hold too few, and SQL ranks them.
    { mode: "match" as const, text: "hypersonic nozzle", language: "english" },
    // Five words: SQL from the start, without asking the index.
    { mode: "match" as const, text: "turbulent boundary layer heat transfer", language: "english" },
  ]) {
    const before = await indexedOutcomes();
    const fromIndex = await ranked(db, indexes, admin("acme"), search);
    const after = await indexedOutcomes();
    const fromSql = await ranked(db, undefined, admin("acme"), search);
    // The index serves a full page (enough of its best match); a short one is ranked in SQL.
    const served = (after["ranked"] ?? 0) - (before["ranked"] ?? 0);
    const left = (after["ranked_in_sql"] ?? 0) - (before["ranked_in_sql"] ?? 0);
    const full = fromSql.length === page.limit;
    const long = search.text.split(" ").length > 4;
    assert.deepEqual(
      [served, left],
      long ? [0, 0] : full ? [1, 0] : [0, 1],
      `${search.mode} ${search.text}: which ranked it`,
    );
    if (search.text === "boundary layer") assert.ok(full, "positive control: a common pair fills the page");
    if (search.text.startsWith("hypersonic")) assert.ok(!full, "positive control: a rare word leaves the page short");
    assert.ok(fromIndex.length > 0, `${search.mode}: positive control, something matches`);
    assert.deepEqual(
      fromIndex.map((row) => row.id),
      fromSql.map((row) => row.id),
      `${search.mode}: the same entries in the same order`,
    );
    for (const [i, row] of fromIndex.entries())
      assert.ok(Math.abs(row.score - fromSql[i]!.score) <= 1e-5 * fromSql[i]!.score, `${search.mode}: score ${i}`);
  }
}

/**
 * The statements the store runs take each row's score from the index scan: the scan's ORDER BY column is the
 * extension's bm25_get_current_score(), not the operator, which would score every row read a second time (the
 * extension replaces it only in the statement's main plan, not inside a CTE).
 */
async function scoresComeFromTheScan(db: SqlDatabase): Promise<void> {
  const terms = new Map([
    ["boundari", 1],
    ["layer", 1],
  ]);
  for (const [mode, rankOnly] of [
    ["any", true],
    ["any", false],
    ["match", true],
    ["match", false],
  ] as const) {
    const params = createSqlParams();
    const statement = indexedFullTextStatement(
      admin("acme"),
      indexNameOf("acme"),
      queryTokens(terms),
      { mode, text: "boundary layer", language: "english" },
      emptySearchFilter,
      page,
      { highlight: !rankOnly, rankOnly },
      params,
    );
    const plan = await db.transaction(async (tx) => {
      await tx.query("SET LOCAL enable_seqscan = off");
      await tx.query("SET LOCAL enable_sort = off");
      return tx.query<{ "QUERY PLAN": string }>(`EXPLAIN (VERBOSE) ${statement}`, params.values);
    });
    const lines = plan.rows.map((row) => row["QUERY PLAN"]);
    const scan = lines.findIndex((line) => line.includes(`Index Scan using ${indexNameOf("acme")}`));
    assert.ok(scan >= 0, `${mode}: the tenant's index is scanned\n${lines.join("\n")}`);
    const output = lines.slice(scan + 1).find((line) => line.trim().startsWith("Output:")) ?? "";
    // The last column is the ORDER BY's own (resjunk); the score's column falls back to the operator only where no
    // scan provides a score.
    assert.match(output, /, bm25_get_current_score\(\)$/, `${mode}, rankOnly ${rankOnly}: ${output}`);
  }
}

test("a tenant's index ranks as BM25 in SQL does over the whole tenant, and only tenants past the threshold get one", async () => {
  await withStore(async (db) => {
    await insertNotes(db, "acme", 60);
    await insertEntries(
      db,
      Array.from({ length: 3 }, (_, n) => ({
        tenant: "acme",
        owner: "alice",
        visibility: "tenant",
        text: `hypersonic ${note(n + 100)}`,
      })),
    );
    await insertNotes(db, "tiny", 5);
    const indexes = await openTenantBm25Indexes(db, settings, ranking.bm25, logger);
    try {
      assert.equal(indexes.indexOf("acme"), undefined, "start-up does not wait for a build: it runs in the background");
      await indexes.maintain();
      assert.equal(indexes.engine, "bm25");
      assert.equal(indexes.indexOf("acme"), indexNameOf("acme"));
      assert.equal(indexes.indexOf("tiny"), undefined, "5 entries are below the threshold of 20");
      await comparesWithSql(db, indexes);
      // The store turns sequential scans and sorts off for these searches (60 rows are too few for the planner to
      // follow an index otherwise); so turned off, the plan must be the tenant's index.
      await db.query("SET enable_seqscan = off");
      await db.query("SET enable_sort = off");
      const plan = await db.query<{ "QUERY PLAN": string }>(
        `EXPLAIN SELECT e.id FROM entries e WHERE e.tenant = 'acme' AND e.trust_state IN ('unverified', 'verified')
         ORDER BY entry_search_tokens(e.search_vector) <@> to_bm25query($1::text, '${indexNameOf("acme")}') LIMIT 10`,
        [queryTokens(new Map([["layer", 1]]))],
      );
      await db.query("RESET enable_seqscan");
      await db.query("RESET enable_sort");
      const text = plan.rows.map((row) => row["QUERY PLAN"]).join("\n");
      assert.match(text, new RegExp(`Index Scan using ${indexNameOf("acme")}`), text);
      await scoresComeFromTheScan(db);
    } finally {
      await indexes.close();
    }
  });
});

test("another tenant's entries change neither a tenant's scores nor its order (I-7)", async () => {
  await withStore(async (db) => {
    await insertNotes(db, "acme", 40);
    await insertEntries(
      db,
      Array.from({ length: 30 }, (_, n) => ({
        tenant: "rival",
        owner: "eve",
        visibility: "tenant",
        text: note(n + 3),
      })),
    );
    const indexes = await openTenantBm25Indexes(db, settings, ranking.bm25, logger);
    try {
      await indexes.maintain();
      const before = await ranked(db, indexes, admin("acme"));
      assert.equal(before.length, 10);
      // The rival floods the query's words (and makes them common): acme's idf would fall were statistics shared.
      await insertEntries(
        db,
        Array.from({ length: 200 }, (_, n) => ({
          tenant: "rival",
          owner: "eve",
          visibility: "tenant",
          text: `turbulent boundary layer heat transfer ${n % 2 === 0 ? "turbulent turbulent" : "layer"}`,
        })),
      );
      await indexes.maintain();
      assert.notEqual(indexes.indexOf("rival"), undefined);
      const after = await ranked(db, indexes, admin("acme"));
      assert.deepEqual(after, before, "byte-identical ids and scores");
      const rival = await ranked(db, indexes, admin("rival"));
      assert.ok(
        rival.every((row) => !before.some((mine) => mine.id === row.id)),
        "and neither tenant sees the other's",
      );
    } finally {
      await indexes.close();
    }
  });
});

test("the index serves only what the caller may see: a neighbour's private entry and quarantined entries never appear", async () => {
  await withStore(async (db) => {
    await insertEntries(
      db,
      Array.from({ length: 40 }, (_, n) => ({ tenant: "acme", owner: "alice", visibility: "private", text: note(n) })),
    );
    const strong = "turbulent boundary layer heat transfer turbulent boundary layer heat transfer";
    const [planted] = await insertEntries(db, [{ tenant: "acme", owner: "bob", visibility: "private", text: strong }]);
    const [quarantined] = await insertEntries(db, [
      { tenant: "acme", owner: "alice", visibility: "private", text: strong, trust: "quarantined" },
    ]);
    const [own] = await insertEntries(db, [{ tenant: "acme", owner: "alice", visibility: "private", text: strong }]);
    const indexes = await openTenantBm25Indexes(db, settings, ranking.bm25, logger);
    try {
      await indexes.maintain();
      const mine = await ranked(db, indexes, alice);
      assert.equal(mine[0]?.id, own, "positive control: the caller's own strong entry comes first");
      assert.ok(!mine.some((row) => row.id === planted), "bob's private entry is never a hit");
      assert.ok(!mine.some((row) => row.id === quarantined), "nor a quarantined one");
      const bobs = await ranked(db, indexes, { ...alice, subject: "bob" });
      assert.deepEqual(
        bobs.map((row) => row.id),
        [planted],
        "bob sees his own entry alone",
      );
      // A deleted entry leaves the ranking at once.
      await db.query("DELETE FROM entries WHERE id = $1", [own]);
      assert.ok(!(await ranked(db, indexes, alice)).some((row) => row.id === own));
    } finally {
      await indexes.close();
    }
  });
});

test("past 200,000 rows the planner's statistics name the large tenants, and only those get an index", async () => {
  await withStore(async (db) => {
    await insertNotes(db, "acme", 40);
    await insertNotes(db, "tiny", 8);
    // As if the table were past the outright count: candidates from pg_stats, each counted as far as the threshold.
    const indexes = await openTenantBm25Indexes(db, { ...settings, countAllBelow: 0 }, ranking.bm25, logger);
    try {
      await indexes.maintain();
      assert.equal(indexes.indexOf("acme"), undefined, "never analysed: no statistics, no candidates");
      await db.query("ANALYZE entries");
      await indexes.maintain();
      assert.equal(indexes.indexOf("acme"), indexNameOf("acme"));
      assert.equal(indexes.indexOf("tiny"), undefined, "8 entries are below the threshold of 20");
      assert.equal((await ranked(db, indexes, admin("acme"))).length, 10, "and the index ranks");
    } finally {
      await indexes.close();
    }
  });
});

test("turning the indexes off drops those built, so writes stop paying for them", async () => {
  await withStore(async (db) => {
    await insertNotes(db, "acme", 25);
    const on = await openTenantBm25Indexes(db, settings, ranking.bm25, logger);
    await on.maintain();
    await on.close();
    const name = indexNameOf("acme");
    const present = async () =>
      (await db.query("SELECT 1 FROM pg_class WHERE relname = $1", [name])).rows.length +
      (await db.query("SELECT 1 FROM bm25_indexes")).rows.length;
    assert.equal(await present(), 2, "positive control: built and listed");
    await openTenantBm25Indexes(db, { ...settings, mode: "gin" }, ranking.bm25, logger, "verify");
    assert.equal(await present(), 2, "a replica that only verifies changes nothing");
    const off = await openTenantBm25Indexes(db, { ...settings, mode: "gin" }, ranking.bm25, logger);
    assert.equal(off.engine, "gin");
    assert.equal(await present(), 0, "dropped and forgotten");
  });
});

test("gin never builds an index; bm25 on a database that has none of it fails naming the variable", async () => {
  await withStore(async (db) => {
    const none = await openTenantBm25Indexes(db, { ...settings, mode: "gin" }, ranking.bm25, logger);
    assert.equal(none.engine, "gin");
    const { rows } = await db.query("SELECT 1 FROM pg_extension WHERE extname = 'pg_textsearch'");
    assert.equal(rows.length, 0, "gin does not even load the extension");
    await assert.rejects(
      openTenantBm25Indexes(db, settings, ranking.bm25, logger, "verify"),
      /STORE_FULL_TEXT_INDEX=bm25 needs the pg_textsearch extension, and it is not installed in this database/,
    );
    const auto = await openTenantBm25Indexes(db, { ...settings, mode: "auto" }, ranking.bm25, logger, "verify");
    assert.equal(auto.engine, "gin", "auto without it ranks in SQL");
  });
});

test("feedback over a tenant's index re-scores the index's best alone: what a second pass over every match would add from outside them stays out", async () => {
  await withStore(async (db) => {
    await insertNotes(db, "acme", indexedRescoreDepth + 30);
    // Five entries lead the query's ranking and share a word no other note holds, so feedback adds it; twelve entries
    // hold that word alone, none of the query's: a second pass over every entry holding an added word can rank them,
    // while re-scoring the index's best cannot reach them.
    const lead = (n: number) => `turbulent boundary layer heat transfer hypersonic turbulent boundary layer ${n}`;
    await insertEntries(
      db,
      Array.from({ length: 5 }, (_, n) => ({ tenant: "acme", owner: "alice", visibility: "tenant", text: lead(n) })),
    );
    const outside = await insertEntries(
      db,
      Array.from({ length: 12 }, (_, n) => ({
        tenant: "acme",
        owner: "alice",
        visibility: "tenant",
        text: `hypersonic ${"hypersonic ".repeat(n % 3)}`,
      })),
    );
    const indexes = await openTenantBm25Indexes(db, settings, ranking.bm25, logger);
    try {
      await indexes.maintain();
      assert.notEqual(indexes.indexOf("acme"), undefined);
      const indexed = createSearchRepository(db, ranking, indexes);
      const inSql = createSearchRepository(db, ranking, undefined);
      const best = (
        await indexed.fullText(
          admin("acme"),
          query,
          emptySearchFilter,
          { limit: indexedRescoreDepth, offset: 0 },
          false,
          true,
        )
      ).map((row) => row.id);
      assert.equal(best.length, indexedRescoreDepth);
      const options = { ...defaultFeedbackOptions };
      const everyMatch = await inSql.fullTextWithFeedback(
        admin("acme"),
        query,
        emptySearchFilter,
        page,
        false,
        options,
        true,
      );
      assert.ok(
        everyMatch.rows.some((row) => outside.includes(row.id)),
        "the corpus is one where a second pass over every match ranks an entry only the added words reach",
      );
      const before = await indexedOutcomes();
      const bounded = await indexed.fullTextWithFeedback(
        admin("acme"),
        query,
        emptySearchFilter,
        page,
        false,
        options,
        true,
      );
      assert.equal((await indexedOutcomes())["ranked"], (before["ranked"] ?? 0) + 1, "the first pass is the index's");
      assert.equal(bounded.rows.length, page.limit);
      assert.ok(bounded.feedback.terms.length > 0, "the query was expanded");
      assert.ok(
        bounded.rows.every((row) => best.includes(row.id)),
        "every result is one of the index's best, re-scored",
      );
      // The same re-scoring in SQL, given those entries: the same page (the expanded query's scores differ only by
      // the index's first-pass scores, which weigh the feedback entries).
      const given = await inSql.fullTextWithFeedback(
        admin("acme"),
        query,
        emptySearchFilter,
        page,
        false,
        options,
        true,
        best,
      );
      assert.deepEqual(new Set(bounded.rows.map((row) => row.id)), new Set(given.rows.map((row) => row.id)));
    } finally {
      await indexes.close();
    }
  });
});
