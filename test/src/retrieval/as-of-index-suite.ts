/**
 * Full-text search as of an earlier instant reads the full-text vectors kept
 * versions store (written with each version, backfilled by their migration,
 * rebuilt with the entries' when the text-search language changes) and finds
 * them by index. Registered by the retrieval suite, so it runs against PGlite
 * and a real PostgreSQL server.
 */
import { before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { commonV1, searchV1 } from "@context-hub/proto";
import type { SqlDatabase } from "@context-hub/store";
import { defaultSearchConfig, migrate, migrations, openSearch, type Principal } from "@context-hub/store/testing";
import {
  annFirstConfig,
  commitWithVectors,
  direction,
  type RetrievalHarness,
  type RetrievalTarget,
} from "./retrieval-fixtures.js";
import {
  generatedFor,
  logger,
  newTenant,
  openConnection,
  openDatabase,
  principal,
  startTestStore,
  type PrincipalInit,
} from "../store/store-fixtures.js";

const { FullTextMode } = searchV1;

const asPrincipal = (init: PrincipalInit): Principal => ({
  tenant: init.tenant ?? "",
  subject: init.subject ?? "",
  groups: init.groups ?? [],
  scopes: init.scopes ?? [],
});

/** Waits until the clock has moved past `instant` by a few milliseconds: stored times have millisecond precision. */
const clockPast = async (instant: Date) => {
  while (Date.now() <= instant.getTime() + 2) await new Promise((resolve) => setTimeout(resolve, 2));
};

const vocabulary = [
  "harbor",
  "crane",
  "storm",
  "schedule",
  "cargo",
  "tide",
  "pilot",
  "berth",
  "manifest",
  "ledger",
  "anchor",
  "dredge",
];

/**
 * Text `variant` of entry `index`: sentences of vocabulary words whose mix,
 * order and length depend on both (so texts rank differently), and a word
 * of its own (`lot<index>v<variant>`) that no other text holds.
 */
function textOf(index: number, variant: number): string {
  let state = (index + 1) * 7919 + (variant + 1) * 104_729;
  const next = () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
  const sentences: string[] = [];
  const count = 2 + Math.floor(next() * 4);
  for (let sentence = 0; sentence < count; sentence++) {
    const words = Array.from(
      { length: 4 + Math.floor(next() * 6) },
      () => vocabulary[Math.floor(next() * vocabulary.length)],
    );
    sentences.push(`${words.join(" ")}.`);
  }
  return `Lot${index}v${variant} log. ${sentences.join(" ")}`;
}

/** The statements `db` runs, recorded, for reading a plan back. */
function recording(db: SqlDatabase): { db: SqlDatabase; statements: { sql: string; params: readonly unknown[] }[] } {
  const statements: { sql: string; params: readonly unknown[] }[] = [];
  return {
    statements,
    db: {
      ...db,
      query: (sql, params) => {
        statements.push({ sql, params: params ?? [] });
        return db.query(sql, params);
      },
    },
  };
}

/** Registers the tests on the harness the retrieval suite started, and on fresh databases of `target`. */
export function defineAsOfIndexTests(target: RetrievalTarget, harness: () => RetrievalHarness): void {
  const h = () => harness();

  describe("as_of full text over stored vectors of kept versions", () => {
    // Tenant `kept` changes its entries after the instant; tenant `twin` holds, live, exactly the texts `kept` held then.
    const kept = principal(newTenant("asof-kept"), "alice");
    const twin = principal(newTenant("asof-twin"), "alice");
    const entries = 12;
    /** How each entry changes around the instant, by index modulo 6. */
    const kinds = [
      "unchanged",
      "updated after",
      "updated twice after",
      "updated before and after",
      "deleted after",
      "updated before, deleted after",
    ] as const;
    const kindOf = (index: number) => kinds[index % kinds.length]!;
    const changedBefore = (index: number) =>
      kindOf(index) === "updated before and after" || kindOf(index) === "updated before, deleted after";
    /** What `kept` held at the instant: (text, version) by entry id; and the twin's text by id. */
    const heldThen = new Map<string, { text: string; version: number }>();
    const twinText = new Map<string, string>();
    let instant: Date;

    const update = async (id: string, text: string) => {
      const reply = await h().client.updateEntries({
        principal: kept,
        updates: [{ id, text, generated: generatedFor(text) }],
        atomic: true,
      });
      assert.ok(reply.results[0]?.ack !== undefined, `update of ${id} acknowledged`);
    };

    before(async () => {
      const ids: string[] = [];
      for (let index = 0; index < entries; index++)
        ids.push(await commitWithVectors(h().client, kept, "kept", textOf(index, 0), [direction(index % 8)]));
      for (const [index, id] of ids.entries()) if (changedBefore(index)) await update(id, textOf(index, 1));
      for (const [index, id] of ids.entries()) {
        const variant = changedBefore(index) ? 1 : 0;
        heldThen.set(id, { text: textOf(index, variant), version: variant + 1 });
        twinText.set(
          await commitWithVectors(h().client, twin, "twin", textOf(index, variant), [direction(index % 8)]),
          textOf(index, variant),
        );
      }
      // Stored times have millisecond precision: leave a few between the last write before the instant and the first after.
      await clockPast(new Date());
      instant = new Date();
      await clockPast(instant);
      for (const [index, id] of ids.entries()) {
        switch (kindOf(index)) {
          case "unchanged":
            break;
          case "updated after":
            await update(id, textOf(index, 1));
            break;
          case "updated twice after":
            await update(id, textOf(index, 1));
            await update(id, textOf(index, 2));
            break;
          case "updated before and after":
            await update(id, textOf(index, 2));
            break;
          case "deleted after":
          case "updated before, deleted after":
            await h().client.deleteEntries({ principal: kept, ids: [id], atomic: true });
            break;
        }
      }
      await commitWithVectors(h().client, kept, "kept", textOf(entries, 0), [direction(0)]);
    });

    const queries: [searchV1.FullTextMode, string][] = [
      [FullTextMode.MATCH, "harbor crane"],
      [FullTextMode.PREFIX, "harb cra"],
      [FullTextMode.PHRASE, "crane schedule"],
      [FullTextMode.BOOLEAN, "harbor -storm"],
      [FullTextMode.ANY, "storm tide pilot"],
    ];

    test("each version held then ranks exactly as the same text ranks live, with the same scores and highlights, in every mode", async () => {
      for (const [mode, query] of queries) {
        const past = await h().searchClient.fullTextSearch({
          principal: kept,
          query,
          mode,
          filter: { asOf: timestampFromDate(instant) },
          limit: 50,
          highlight: true,
        });
        const live = await h().searchClient.fullTextSearch({
          principal: twin,
          query,
          mode,
          limit: 50,
          highlight: true,
        });
        assert.ok(live.hits.length >= 2, `positive control: "${query}" matches several texts (mode ${mode})`);
        const key = (text: string | undefined, hit: searchV1.SearchHit) =>
          `${hit.score}|${text}|${JSON.stringify(hit.highlights)}`;
        const pastKeys = past.hits.map((hit) => {
          const held = heldThen.get(hit.entry?.id ?? "");
          assert.ok(held !== undefined, `as_of found only entries that existed then (mode ${mode})`);
          assert.equal(hit.entry?.version, held.version, "with the version current then");
          return key(held.text, hit);
        });
        const liveKeys = live.hits.map((hit) => key(twinText.get(hit.entry?.id ?? ""), hit));
        assert.deepEqual(
          past.hits.map((hit) => hit.score),
          live.hits.map((hit) => hit.score),
          `the same scores in the same order (mode ${mode}, "${query}")`,
        );
        assert.deepEqual(
          [...pastKeys].sort(),
          [...liveKeys].sort(),
          `the same texts with the same scores and highlights (mode ${mode}, "${query}")`,
        );
        assert.deepEqual(past.warnings, live.warnings);
      }
    });

    test("kept versions of live and deleted entries are found by their own words, and only as of when they were current", async () => {
      // Entry 1 was updated after the instant, entry 4 deleted after it, entry 3 updated both before and after.
      const asOf = timestampFromDate(instant);
      const ids = async (query: string, filter = {}) =>
        (
          await h().searchClient.fullTextSearch({ principal: kept, query, mode: FullTextMode.MATCH, filter, limit: 10 })
        ).hits.map((hit) => hit.entry?.version);
      assert.deepEqual(await ids("lot1v0", { asOf }), [1], "an updated entry's first version");
      assert.deepEqual(await ids("lot1v0"), [], "positive control: not its text now");
      assert.deepEqual(await ids("lot4v0", { asOf }), [1], "a deleted entry's last version, for its owner");
      assert.deepEqual(await ids("lot3v1", { asOf }), [2], "the version current then, not the first one");
      assert.deepEqual(await ids("lot3v0", { asOf }), [], "a version superseded before the instant is not found");
      assert.deepEqual(await ids("lot2v1", { asOf }), [], "nor one that became current after it");
      assert.deepEqual(await ids(`lot${entries}v0`, { asOf }), [], "nor an entry created after it");
    });
  });

  describe("stored vectors of kept versions follow the store", () => {
    test("as_of full text can find kept versions through the index of their stored vectors, and parses no text", async () => {
      const database = await target.createDatabase();
      const db = await openDatabase(database.options, logger);
      try {
        const owner = principal(newTenant("asof-index"), "a1");
        const batches = 3;
        const ids: string[] = [];
        const store = await startTestStore(database.options, db);
        let instant: Date;
        try {
          for (let batch = 0; batch < batches; batch++) {
            const texts = Array.from({ length: 100 }, (_, offset) => textOf(batch * 100 + offset, 0));
            const reply = await store.client.commitBatch({
              principal: owner,
              atomic: true,
              entries: texts.map((text) => ({
                entry: { threadId: "index", source: commonV1.Source.USER, text },
                generated: generatedFor(text),
              })),
            });
            ids.push(...reply.results.map((result) => result.ack!.id));
          }
          await clockPast(new Date());
          instant = new Date();
          await clockPast(instant);
          for (let batch = 0; batch < batches; batch++) {
            const updates = ids.slice(batch * 100, (batch + 1) * 100).map((id, offset) => {
              const text = textOf(batch * 100 + offset, 1);
              return { id, text, generated: generatedFor(text) };
            });
            await store.client.updateEntries({ principal: owner, updates, atomic: true });
          }
        } finally {
          await store.close();
        }
        // A running store keeps planner statistics current (search-statistics.ts; autovacuum on a server).
        for (const table of ["entries", "entry_versions", "tombstones", "grants"]) await db.query(`ANALYZE ${table}`);
        const recorded = recording(db);
        const search = await openSearch(recorded.db, annFirstConfig, logger);
        try {
          recorded.statements.length = 0;
          const filter = {
            threadId: "",
            source: undefined,
            tagsAny: [],
            tagsAll: [],
            metadata: [],
            createdFrom: undefined,
            createdTo: undefined,
            contentType: "",
            asOf: instant,
          };
          const result = await search.service.fullText(asPrincipal(owner), {
            query: "lot7v0",
            mode: "match",
            language: "",
            filter,
            limit: 10,
            offset: 0,
            highlight: false,
          });
          assert.deepEqual(
            result.hits.map((hit) => [hit.entryId, hit.entry?.version]),
            [[ids[7], 1]],
            "positive control: the kept version is found",
          );
          // The ranking statement (the one before it reads the query's terms alone).
          const ranking = recorded.statements.find(
            (statement) => statement.sql.includes("search_query AS") && statement.sql.includes("weights AS"),
          );
          assert.ok(ranking !== undefined, "the full-text statement ran");
          const plan = await db.transaction(async (tx) => {
            // Tables this small are cheaper to read whole (and the planner does not price detoasting a vector), so it
            // would scan them; with scans priced out, the plan shows the statement lets both GIN indexes serve it.
            await tx.query("SET LOCAL enable_seqscan = off");
            const { rows } = await tx.query<Record<string, string>>(`EXPLAIN ${ranking.sql}`, [...ranking.params]);
            return rows.map((row) => Object.values(row).join("")).join("\n");
          });
          assert.match(plan, /Bitmap Index Scan on entry_versions_search_idx/, plan);
          assert.match(plan, /Bitmap Index Scan on entries_search_idx/, plan);
          assert.doesNotMatch(plan, /entry_search_vector/, "no kept version's text is parsed");
        } finally {
          await search.close();
        }
      } finally {
        await db.close();
        await database.dispose();
      }
    });

    test("a change of the text-search language recomputes kept versions' vectors too", async () => {
      const database = await target.createDatabase();
      const db = await openDatabase(database.options, logger);
      try {
        const owner = principal(newTenant("asof-language"), "a1");
        const store = await startTestStore(database.options, db);
        let instant: Date;
        try {
          const first = "Die Häuser wurden im Frühjahr gebaut.";
          const reply = await store.client.commit({
            principal: owner,
            entry: { threadId: "t", source: commonV1.Source.USER, text: first },
            generated: generatedFor(first),
          });
          const id = reply.ack!.id;
          instant = new Date();
          await clockPast(instant);
          const second = "Die Brücke wurde im Herbst erneuert.";
          await store.client.updateEntries({
            principal: owner,
            updates: [{ id, text: second, generated: generatedFor(second) }],
            atomic: true,
          });
        } finally {
          await store.close();
        }
        const query = (asOf: Date | undefined) => ({
          query: "Haus",
          mode: "match" as const,
          language: "",
          filter: {
            threadId: "",
            source: undefined,
            tagsAny: [],
            tagsAll: [],
            metadata: [],
            createdFrom: undefined,
            createdTo: undefined,
            contentType: "",
            asOf,
          },
          limit: 10,
          offset: 0,
          highlight: false,
        });
        const english = await openSearch(db, defaultSearchConfig, logger);
        assert.equal(
          (await english.service.fullText(asPrincipal(owner), query(instant))).hits.length,
          0,
          "English does not stem Häuser to haus",
        );
        await english.close();
        const german = await openSearch(db, { ...annFirstConfig, language: "german" }, logger);
        try {
          const hits = (await german.service.fullText(asPrincipal(owner), query(instant))).hits;
          assert.deepEqual(
            hits.map((hit) => hit.entry?.version),
            [1],
            "German does, in the kept version, once its vector is rebuilt",
          );
          assert.equal(
            (await german.service.fullText(asPrincipal(owner), query(undefined))).hits.length,
            0,
            "and the current text has no houses",
          );
        } finally {
          await german.close();
        }
        const { rows } = await db.query<{ stale: number }>(
          "SELECT count(*)::integer AS stale FROM entry_versions WHERE search_vector IS DISTINCT FROM to_tsvector('german', text)",
        );
        assert.equal(rows[0]?.stale, 0);
      } finally {
        await db.close();
        await database.dispose();
      }
    });

    test("the migration computes the vectors of versions kept before it, in batches, and indexes them", async () => {
      const database = await target.createDatabase();
      try {
        const connection = await openConnection(database.options);
        try {
          const keptBefore = migrations.filter((migration) => migration.version < 8);
          assert.deepEqual(
            (await migrate(connection, logger, keptBefore)).applied,
            keptBefore.map((migration) => migration.version),
          );
          // More versions than one batch holds (500), one of them large, written as the schema before version 8 kept them.
          await connection.query(
            `INSERT INTO entry_versions (entry_id, version, tenant, thread_id, source, owner, visibility, text, content_hash, metadata, tags, summary, trust_state,
               written_by, written_at, superseded_by, change_kind)
             SELECT gen_random_uuid(), 1 + n % 3, 'old', 't', 'user', 'a1', 'private',
               CASE WHEN n = 700 THEN repeat('ballast words here ', 60000) || 'needle' ELSE 'kept version number ' || n || ' about harbors' END,
               repeat('0', 64), '{}', '{}', '', 'verified', 'a1', now(), 'a1', 'update'
             FROM generate_series(1, 1201) AS n`,
          );
          const throughVersion8 = migrations.filter((migration) => migration.version <= 8);
          assert.deepEqual((await migrate(connection, logger, throughVersion8)).applied, [8]);
          const { rows } = await connection.query<{ versions: number; stale: number; needle: number }>(
            `SELECT count(*)::integer AS versions,
               count(*) FILTER (WHERE search_vector IS DISTINCT FROM entry_search_vector(text))::integer AS stale,
               count(*) FILTER (WHERE search_vector @@ plainto_tsquery('english', 'needle'))::integer AS needle
             FROM entry_versions`,
          );
          assert.deepEqual(rows[0], { versions: 1201, stale: 0, needle: 1 });
          const { rows: columns } = await connection.query<{ not_null: boolean }>(
            "SELECT attnotnull AS not_null FROM pg_attribute WHERE attrelid = 'entry_versions'::regclass AND attname = 'search_vector'",
          );
          assert.deepEqual(
            columns,
            [{ not_null: true }],
            "every version has one, and a version without one is refused",
          );
          const { rows: indexes } = await connection.query<{ definition: string }>(
            "SELECT indexdef AS definition FROM pg_indexes WHERE indexname = 'entry_versions_search_idx'",
          );
          assert.match(indexes[0]?.definition ?? "", /USING gin \(search_vector\)/);
        } finally {
          await connection.close();
        }
      } finally {
        await database.dispose();
      }
    });
  });
}
