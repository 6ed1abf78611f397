/**
 * BM25 full-text ranking, run unchanged against PGlite and a real PostgreSQL
 * server: the store's scores and order against BM25 computed here in
 * TypeScript over a small corpus whose words the English configuration
 * keeps as they are (no stop words, nothing to stem), statistics over what
 * the caller may see (so neither another tenant, I-7, nor a hidden entry moves a score), and repeated words counting again;
 * pseudo-relevance feedback's expansion under the same boundary.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  defaultSearchConfig,
  migrate,
  migrations,
  openSearch,
  type OpenSearch,
  type Principal,
} from "@context-hub/store/testing";
import { startRetrievalHarness, type RetrievalHarness, type RetrievalTarget } from "./retrieval-fixtures.js";
import {
  commitText,
  logger,
  newTenant,
  openConnection,
  principal,
  type PrincipalInit,
} from "../store/store-fixtures.js";

type Mode = "match" | "any" | "phrase" | "prefix" | "boolean";

const k1 = 1.2;
const b = 0.75;

const asPrincipal = (init: PrincipalInit): Principal => ({
  tenant: init.tenant ?? "",
  subject: init.subject ?? "",
  groups: init.groups ?? [],
  scopes: init.scopes ?? [],
});

/** A query term: a word, or a prefix standing for every word it starts. */
interface Term {
  text: string;
  prefix: boolean;
}

/**
 * BM25 of each document for `terms` (repeats count again), with N, the
 * average length and document frequencies over `collection`: the textbook
 * formula, written independently of the store's SQL.
 */
function expectedScores(
  collection: readonly string[][],
  documents: readonly string[][],
  terms: readonly Term[],
): number[] {
  const matches = (word: string, term: Term) => (term.prefix ? word.startsWith(term.text) : word === term.text);
  const n = collection.length;
  const averageLength = collection.reduce((sum, words) => sum + words.length, 0) / n;
  return documents.map((words) =>
    terms.reduce((score, term) => {
      const tf = words.filter((word) => matches(word, term)).length;
      if (tf === 0) return score;
      const df = collection.filter((other) => other.some((word) => matches(word, term))).length;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      return score + (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * words.length) / averageLength));
    }, 0),
  );
}

const words = (text: string) => text.split(" ");

export function defineBm25Suite(target: RetrievalTarget): void {
  describe(`BM25 full-text ranking on ${target.name}`, () => {
    let h: RetrievalHarness;
    let search: OpenSearch;
    before(async () => {
      h = await startRetrievalHarness(target);
      // Statistics counted for every query, so a test sees each write at once.
      search = await openSearch(h.db, { ...defaultSearchConfig, bm25: { k1, b }, bm25StatisticsTtlMs: 0 }, logger);
    });
    after(async () => {
      await search?.close();
      await h?.close();
    });

    const ranked = async (caller: PrincipalInit, query: string, mode: Mode, limit = 50) =>
      (
        await search.service.fullText(asPrincipal(caller), {
          query,
          mode,
          language: "",
          filter: undefined,
          limit,
          offset: 0,
          highlight: false,
        })
      ).hits.map((hit) => ({
        id: hit.entryId,
        score: hit.score,
      }));

    describe("scores", () => {
      const tenant = newTenant("bm25");
      const owner = principal(tenant, "owner");
      const other = principal(tenant, "other");
      // The owner's entries, then one only `other` may see: it counts nowhere in the owner's statistics, so it cannot move the owner's scores.
      const texts = [
        "wing lift drag wing",
        "rotor blade thrust",
        "wing flap flap flap spar span",
        "lift lift lift gust gust vortex hull keel mast stall",
        "spar span spar blade wing lift",
        "drag drag",
      ];
      const hiddenText = "wing vortex gust hull";
      const ids: string[] = [];
      before(async () => {
        for (const text of texts) ids.push((await commitText(h.client, owner, "corpus", text)).id);
        await commitText(h.client, other, "corpus", hiddenText);
        // Quarantined and rejected entries are left out of the statistics, as from default searches.
        for (const [state, text] of [
          ["quarantined", "wing wing wing wing lift"],
          ["rejected", "rotor rotor span"],
        ] as const) {
          const { id } = await commitText(h.client, owner, "corpus", text);
          await h.db.query("UPDATE entries SET trust_state = $2 WHERE id = $1", [id, state]);
        }
      });

      const collection = () => texts.map(words);
      const cases: { mode: Mode; query: string; terms: Term[]; matching: (text: string) => boolean }[] = [
        {
          mode: "any",
          query: "wing lift vortex",
          terms: ["wing", "lift", "vortex"].map((text) => ({ text, prefix: false })),
          matching: (text) => /\b(wing|lift|vortex)\b/.test(text),
        },
        {
          mode: "any",
          query: "lift lift wing",
          terms: ["lift", "lift", "wing"].map((text) => ({ text, prefix: false })),
          matching: (text) => /\b(wing|lift)\b/.test(text),
        },
        {
          mode: "match",
          query: "wing lift",
          terms: ["wing", "lift"].map((text) => ({ text, prefix: false })),
          matching: (text) => /\bwing\b/.test(text) && /\blift\b/.test(text),
        },
        {
          mode: "phrase",
          query: "spar span",
          terms: ["spar", "span"].map((text) => ({ text, prefix: false })),
          matching: (text) => text.includes("spar span"),
        },
        {
          mode: "prefix",
          query: "spa",
          terms: [{ text: "spa", prefix: true }],
          matching: (text) => /\bspa/.test(text),
        },
        {
          mode: "boolean",
          query: "wing -flap",
          terms: [{ text: "wing", prefix: false }],
          matching: (text) => /\bwing\b/.test(text) && !/\bflap\b/.test(text),
        },
        {
          mode: "boolean",
          query: '"spar span" OR drag',
          terms: ["spar", "span", "drag"].map((text) => ({ text, prefix: false })),
          matching: (text) => text.includes("spar span") || /\bdrag\b/.test(text),
        },
      ];

      for (const { mode, query, terms, matching } of cases) {
        test(`${mode} ${JSON.stringify(query)}: BM25 over the entries the caller may see, best first, within 1 %`, async () => {
          const expected = expectedScores(collection(), texts.map(words), terms)
            .map((score, index) => ({ id: ids[index] ?? "", score, text: texts[index] ?? "" }))
            .filter((row) => matching(row.text))
            .sort((x, y) => y.score - x.score);
          const actual = await ranked(owner, query, mode);
          assert.deepEqual(
            actual.map((row) => row.id),
            expected.map((row) => row.id),
            `order: ${JSON.stringify({ actual, expected })}`,
          );
          for (const [index, row] of expected.entries()) {
            const score = actual[index]?.score ?? 0;
            assert.ok(
              row.score > 0 && Math.abs(score - row.score) <= 0.01 * row.score,
              `${mode} ${query} #${index}: store ${score}, BM25 ${row.score}`,
            );
          }
        });
      }

      test("a query whose words are all stop words answers with nothing and says why", async () => {
        const reply = await search.service.fullText(asPrincipal(owner), {
          query: "the of and",
          mode: "any",
          language: "",
          filter: undefined,
          limit: 10,
          offset: 0,
          highlight: false,
        });
        assert.deepEqual(reply.hits, []);
        assert.match(reply.warnings.join(" "), /no searchable words/);
      });
    });

    describe("repeated words", () => {
      const tenant = newTenant("bm25-repeat");
      const owner = principal(tenant, "owner");
      const ids: Record<string, string> = {};
      before(async () => {
        ids.once = (await commitText(h.client, owner, "repeat", "wing rotor gust keel")).id;
        ids.twice = (await commitText(h.client, owner, "repeat", "wing wing gust keel")).id;
        ids.wing = (await commitText(h.client, owner, "repeat", "wing drag mast hull")).id;
        ids.lift = (await commitText(h.client, owner, "repeat", "lift drag mast hull")).id;
      });

      test("a document repeating a query word ranks above one holding it once", async () => {
        const hits = await ranked(owner, "wing", "any");
        assert.equal(hits[0]?.id, ids.twice, JSON.stringify(hits));
        assert.ok(
          (hits[0]?.score ?? 0) > (hits.find((hit) => hit.id === ids.once)?.score ?? Infinity),
          JSON.stringify(hits),
        );
      });

      test("a query repeating a word weighs it more", async () => {
        const score = (hits: { id: string; score: number }[], id: string | undefined) =>
          hits.find((hit) => hit.id === id)?.score ?? 0;
        const even = await ranked(owner, "wing lift", "any");
        const wingFourTimes = await ranked(owner, "wing wing wing wing lift", "any");
        // lift (one entry) is rarer than wing (three), so it leads with each word once; repeating wing turns the order.
        assert.ok(score(even, ids.lift) > score(even, ids.wing), JSON.stringify(even));
        assert.ok(score(wingFourTimes, ids.wing) > score(wingFourTimes, ids.lift), JSON.stringify(wingFourTimes));
        assert.ok(
          Math.abs(score(wingFourTimes, ids.wing) - 4 * score(even, ids.wing)) < 1e-9,
          "a word's weight is its repeats times its BM25",
        );
        assert.equal(score(wingFourTimes, ids.lift), score(even, ids.lift));
      });

      test("ties go to the newer entry", async () => {
        const hits = await ranked(owner, "drag", "any");
        assert.deepEqual(
          hits.map((hit) => hit.id),
          [ids.lift, ids.wing],
          "equal length and frequency: equal scores, newer first",
        );
        assert.equal(hits[0]?.score, hits[1]?.score);
      });
    });

    describe("statistics never cross a tenant (I-7)", () => {
      const tenantA = newTenant("bm25-a");
      const tenantB = newTenant("bm25-b");
      const a = principal(tenantA, "a");
      const bee = principal(tenantB, "b");
      before(async () => {
        for (const text of ["wing lift drag", "wing rotor", "lift gust gust", "keel hull mast wing", "stall vortex"])
          await commitText(h.client, a, "mine", text);
      });

      test("another tenant's many entries sharing the query's words change neither the scores nor the order", async () => {
        const queries: [string, Mode][] = [
          ["wing lift gust", "any"],
          ["wing", "match"],
          ["wi", "prefix"],
          ["wing -drag", "boolean"],
        ];
        const before = await Promise.all(queries.map(([query, mode]) => ranked(a, query, mode)));
        for (const [, hits] of before.entries()) assert.ok(hits.length > 0);
        // Many entries, long and short, holding the words, so every statistic would move if it were shared.
        for (let index = 0; index < 40; index += 1) {
          await commitText(
            h.client,
            bee,
            "theirs",
            index % 2 === 0
              ? "wing wing lift"
              : "wing gust lift drag rotor keel hull mast stall vortex spar span blade thrust flap",
          );
        }
        const afterwards = await Promise.all(queries.map(([query, mode]) => ranked(a, query, mode)));
        assert.deepEqual(afterwards, before);
        // Positive control: the same writes in tenant A do move A's scores.
        await commitText(h.client, a, "mine", "wing wing lift");
        const moved = await ranked(a, "wing lift gust", "any");
        assert.notDeepEqual(moved, before[0]);
      });
    });

    describe("pseudo-relevance feedback", () => {
      const tenant = newTenant("bm25-prf");
      const foreign = newTenant("bm25-prf-other");
      const owner = principal(tenant, "owner");
      const colleague = principal(tenant, "colleague");
      const outsider = principal(foreign, "outsider");
      const ids: Record<string, string> = {};
      before(async () => {
        for (const [name, text] of [
          ["wingLift", "wing lift camber"],
          ["wingCamber", "wing camber lift spar"],
          ["liftOnly", "camber lift aerofoil"],
          ["rotor", "rotor blade thrust"],
          ["hull", "hull keel mast"],
        ] as const) {
          ids[name] = (await commitText(h.client, owner, "prf", text)).id;
        }
      });

      const withFeedback = async (
        caller: PrincipalInit,
        query: string,
        mode: Mode,
        feedback = { documents: 2, terms: 5, queryWeight: 0.5 as number | undefined },
        asOf?: Date,
        limit = 50,
      ) => {
        const filter =
          asOf === undefined
            ? undefined
            : {
                threadId: "",
                source: undefined,
                tagsAny: [],
                tagsAll: [],
                metadata: [],
                createdFrom: undefined,
                createdTo: undefined,
                contentType: "",
                asOf,
              };
        const reply = await search.service.fullText(asPrincipal(caller), {
          query,
          mode,
          language: "",
          filter,
          limit,
          offset: 0,
          highlight: false,
          feedback,
        });
        return { hits: reply.hits.map((hit) => ({ id: hit.entryId, score: hit.score })), feedback: reply.feedback };
      };

      test("the feedback entries' shared words expand the query, and an entry holding only them is found in any-word mode", async () => {
        const plain = await ranked(owner, "wing", "any");
        assert.deepEqual(new Set(plain.map((hit) => hit.id)), new Set([ids.wingLift, ids.wingCamber]));
        const expanded = await withFeedback(owner, "wing", "any");
        assert.equal(expanded.feedback?.documents, 2);
        const terms = expanded.feedback?.terms.map((term) => term.lexeme) ?? [];
        assert.ok(terms.includes("lift") && terms.includes("camber"), JSON.stringify(expanded.feedback));
        assert.ok(
          !terms.includes("rotor") && !terms.includes("hull"),
          "only the feedback entries' words are candidates",
        );
        assert.deepEqual(
          expanded.hits
            .slice(0, 2)
            .map((hit) => hit.id)
            .sort(),
          [ids.wingLift, ids.wingCamber].sort(),
        );
        assert.equal(
          expanded.hits[2]?.id,
          ids.liftOnly,
          `an entry without the query's word but with the expansion's: ${JSON.stringify(expanded.hits)}`,
        );
        // match mode keeps its meaning: only entries holding every query word, ranked by the expanded query.
        const matched = await withFeedback(owner, "wing", "match");
        assert.deepEqual(new Set(matched.hits.map((hit) => hit.id)), new Set([ids.wingLift, ids.wingCamber]));
      });

      test("with query weight 1 the scores are plain BM25's", async () => {
        const plain = await ranked(owner, "wing lift", "match");
        const unchanged = await withFeedback(owner, "wing lift", "match", { documents: 2, terms: 5, queryWeight: 1 });
        assert.deepEqual(
          unchanged.hits.map((hit) => hit.id),
          plain.map((hit) => hit.id),
        );
        for (const [index, hit] of plain.entries())
          assert.ok(Math.abs((unchanged.hits[index]?.score ?? 0) - hit.score) < 1e-9);
      });

      test("as of an instant it expands from what the caller could see then, as now when nothing changed since", async () => {
        const now = await withFeedback(owner, "wing", "any");
        const then = await withFeedback(owner, "wing", "any", undefined, new Date());
        assert.deepEqual(then.feedback, now.feedback);
        assert.deepEqual(
          then.hits.map((hit) => hit.id),
          now.hits.map((hit) => hit.id),
        );
        for (const [index, hit] of now.hits.entries())
          assert.ok(Math.abs((then.hits[index]?.score ?? 0) - hit.score) <= 1e-6 * hit.score);
      });

      test("a short page is the one matching every expansion word would give, though the lightest words no longer widen the match", async () => {
        // As of an instant every statistic is counted inside the statements and every expansion word widens the match;
        // now, kept and bounded counts and the narrower match must give the same page.
        for (const [query, limit] of [
          ["wing", 1],
          ["wing", 2],
          ["camber lift", 1],
          ["lift spar", 2],
        ] as const) {
          const now = await withFeedback(owner, query, "any", undefined, undefined, limit);
          const then = await withFeedback(owner, query, "any", undefined, new Date(), limit);
          assert.equal(now.hits.length, limit);
          assert.deepEqual(now.feedback, then.feedback);
          assert.deepEqual(
            now.hits.map((hit) => hit.id),
            then.hits.map((hit) => hit.id),
            `${query} limit ${limit}`,
          );
        }
      });

      const chosen = async (
        caller: PrincipalInit,
        query: string,
        relevant: { ids: string[]; weights: number[] },
        within: string[],
      ) => {
        const feedback = {
          documents: 2,
          terms: 5,
          queryWeight: 0.5,
          relevantIds: relevant.ids,
          relevantWeights: relevant.weights,
        };
        const reply = await search.service.fullText(asPrincipal(caller), {
          query,
          mode: "any",
          language: "",
          filter: undefined,
          limit: 50,
          offset: 0,
          highlight: false,
          feedback,
          withinIds: within,
        });
        return { hits: reply.hits.map((hit) => ({ id: hit.entryId, score: hit.score })), feedback: reply.feedback };
      };

      test("given the first pass's entries and a candidate set, it expands as a first pass would and scores only the candidates", async () => {
        const first = await ranked(owner, "wing", "any", 2);
        const full = await withFeedback(owner, "wing", "any");
        const candidates = [ids.wingLift!, ids.wingCamber!, ids.liftOnly!, ids.rotor!];
        const rescored = await chosen(
          owner,
          "wing",
          { ids: first.map((hit) => hit.id), weights: first.map((hit) => hit.score) },
          candidates,
        );
        assert.deepEqual(rescored.feedback, full.feedback);
        // rotor holds no word of the expanded query, so it does not match; the others score as the full second pass scores them.
        const expected = full.hits.filter((hit) => candidates.includes(hit.id));
        assert.deepEqual(
          rescored.hits.map((hit) => hit.id),
          expected.map((hit) => hit.id),
        );
        for (const [index, hit] of expected.entries())
          assert.ok(
            Math.abs((rescored.hits[index]?.score ?? 0) - hit.score) <= 1e-9 * hit.score,
            JSON.stringify({ hit, rescored }),
          );
        // An entry the expansion would match is left out when it is not a candidate.
        const narrower = await chosen(
          owner,
          "wing",
          { ids: first.map((hit) => hit.id), weights: first.map((hit) => hit.score) },
          [ids.wingLift!, ids.wingCamber!],
        );
        assert.ok(!narrower.hits.some((hit) => hit.id === ids.liftOnly), JSON.stringify(narrower.hits));
        assert.equal(narrower.hits.length, 2);
      });

      test("chosen relevant entries the caller may not see count for nothing", async () => {
        const hidden = (await commitText(h.client, colleague, "prf-chosen", "wing rotor blade zebra zebra")).id;
        const foreignId = (await commitText(h.client, outsider, "prf-chosen", "wing hull keel okapi okapi")).id;
        const candidates = Object.values(ids);
        const visibleOnly = await chosen(
          owner,
          "wing",
          { ids: [ids.wingLift!, ids.wingCamber!], weights: [] },
          candidates,
        );
        const withHidden = await chosen(
          owner,
          "wing",
          { ids: [hidden, foreignId, ids.wingLift!, ids.wingCamber!], weights: [] },
          [...candidates, hidden, foreignId],
        );
        assert.equal(visibleOnly.feedback?.documents, 2);
        // At most `documents` ids are read: the two hidden ones, so none is left and the plain ranking answers.
        assert.equal(withHidden.feedback?.documents, 0);
        const laterHidden = await chosen(
          owner,
          "wing",
          { ids: [ids.wingLift!, hidden, foreignId, ids.wingCamber!].slice(0, 2), weights: [] },
          [...candidates, hidden, foreignId],
        );
        assert.equal(laterHidden.feedback?.documents, 1);
        for (const result of [withHidden, laterHidden]) {
          const words = result.feedback?.terms.map((term) => term.lexeme) ?? [];
          assert.ok(!words.includes("zebra") && !words.includes("okapi"), JSON.stringify(result.feedback));
          assert.ok(!result.hits.some((hit) => hit.id === hidden || hit.id === foreignId), JSON.stringify(result.hits));
        }
      });

      test("chosen relevant entries and candidate sets are checked, and refused as of an instant", async () => {
        const call = (
          feedback: { relevantIds?: string[]; relevantWeights?: number[] } | undefined,
          withinIds: string[] | undefined,
          asOf?: Date,
        ) =>
          search.service.fullText(asPrincipal(owner), {
            query: "wing",
            mode: "any",
            language: "",
            filter:
              asOf === undefined
                ? undefined
                : {
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
            feedback:
              feedback === undefined ? undefined : { documents: 0, terms: 0, queryWeight: undefined, ...feedback },
            withinIds,
          });
        await assert.rejects(
          call({ relevantIds: ["not-an-id"] }, undefined),
          /feedback relevant_ids\[0\] must be a full entry id/,
        );
        await assert.rejects(
          call({ relevantIds: [ids.wingLift!], relevantWeights: [1, 2] }, undefined),
          /one weight per relevant id/,
        );
        await assert.rejects(
          call({ relevantIds: [ids.wingLift!], relevantWeights: [0] }, undefined),
          /finite and greater than 0/,
        );
        await assert.rejects(call(undefined, ["nope"]), /within_ids\[0\] must be a full entry id/);
        await assert.rejects(
          call(
            undefined,
            Array.from({ length: 501 }, () => ids.wingLift!),
          ),
          /within_ids may hold at most 500 ids/,
        );
        await assert.rejects(call(undefined, [ids.wingLift!], new Date()), /not available with as_of/);
        await assert.rejects(call({ relevantIds: [ids.wingLift!] }, undefined, new Date()), /not available with as_of/);
        // Without feedback, a candidate set ranks those entries alone by the query.
        const plain = await call(undefined, [ids.wingCamber!, ids.rotor!]);
        assert.deepEqual(
          plain.hits.map((hit) => hit.entryId),
          [ids.wingCamber],
        );
      });

      test("hidden entries of the caller's tenant and another tenant's entries change neither the expansion terms nor the scores", async () => {
        const queries: [string, Mode][] = [
          ["wing", "any"],
          ["wing lift", "match"],
          ["camber -rotor", "boolean"],
        ];
        const before = await Promise.all(queries.map(([query, mode]) => withFeedback(owner, query, mode)));
        for (const result of before)
          assert.ok(result.hits.length > 0 && (result.feedback?.terms.length ?? 0) > 0, JSON.stringify(result));
        // Entries only a colleague may see, and another tenant's, holding the query's and the expansion's words: each would move a statistic or a feedback word if it counted.
        for (let index = 0; index < 12; index += 1) {
          const text = index % 2 === 0 ? "wing wing lift vortex gust" : "camber camber wing flap flap stall";
          await commitText(h.client, colleague, "prf-hidden", text);
          await commitText(h.client, outsider, "prf", text);
        }
        const afterwards = await Promise.all(queries.map(([query, mode]) => withFeedback(owner, query, mode)));
        assert.deepEqual(afterwards, before);
        // Positive control: the same words written where the owner sees them move both.
        await commitText(h.client, owner, "prf", "wing wing lift vortex gust");
        const moved = await withFeedback(owner, "wing", "any");
        assert.notDeepEqual(moved.hits, before[0]?.hits);
        assert.notDeepEqual(moved.feedback, before[0]?.feedback);
      });

      test("feedback refuses prefix queries and knobs out of range, clearly", async () => {
        const call = (mode: Mode, feedback: { documents: number; terms: number; queryWeight: number | undefined }) =>
          search.service.fullText(asPrincipal(owner), {
            query: "wing",
            mode,
            language: "",
            filter: undefined,
            limit: 10,
            offset: 0,
            highlight: false,
            feedback,
          });
        await assert.rejects(
          call("prefix", { documents: 0, terms: 0, queryWeight: undefined }),
          /feedback is not available in prefix mode/,
        );
        await assert.rejects(
          call("any", { documents: 51, terms: 0, queryWeight: undefined }),
          /feedback documents must be 1 to 50/,
        );
        await assert.rejects(
          call("any", { documents: 0, terms: 101, queryWeight: undefined }),
          /feedback terms must be 1 to 100/,
        );
        await assert.rejects(
          call("any", { documents: 0, terms: 0, queryWeight: 1.5 }),
          /feedback query weight must be 0 to 1/,
        );
      });
    });

    test("the migration fills the length of stored entries and kept versions, and every write keeps it", async () => {
      const database = await target.createDatabase();
      try {
        const connection = await openConnection(database.options);
        try {
          await migrate(
            connection,
            logger,
            migrations.filter((migration) => migration.version < 9),
          );
          const id = "01900000-0000-7000-8000-000000000001";
          // Stop words are not counted; a repeated word counts each time.
          await connection.query(
            `INSERT INTO entries (id, tenant, thread_id, source, owner, visibility, text, text_length, preview, content_hash)
             VALUES ($1, 't', 'x', 'user', 'a1', 'private', 'the wing and the wing lift', 26, 'p', repeat('0', 64))`,
            [id],
          );
          await connection.query(
            `INSERT INTO entry_versions (entry_id, version, tenant, thread_id, source, owner, visibility, text, content_hash, metadata, tags, summary, trust_state,
               written_by, written_at, superseded_by, change_kind, search_vector)
             VALUES ($1, 1, 't', 'x', 'user', 'a1', 'private', 'lift drag drag gust of wind', repeat('0', 64), '{}', '{}', '', 'verified', 'a1', now(), 'a1', 'update',
               to_tsvector('english', 'lift drag drag gust of wind'))`,
            [id],
          );
          // Migration 10 keeps the lengths, now generated from the stored vectors (which a trigger fills from the text).
          const applied = (await migrate(connection, logger)).applied;
          assert.deepEqual(
            applied.filter((version) => version <= 10),
            [9, 10],
          );
          const length = async () =>
            (
              await connection.query<{ entry: number; version: number }>(
                "SELECT e.search_length AS entry, v.search_length AS version FROM entries e JOIN entry_versions v ON v.entry_id = e.id WHERE e.id = $1",
                [id],
              )
            ).rows[0];
          assert.deepEqual(await length(), { entry: 3, version: 5 });
          await connection.query("UPDATE entries SET text = 'wing wing wing wing' WHERE id = $1", [id]);
          assert.deepEqual(
            await length(),
            { entry: 4, version: 5 },
            "an update (or a restore, which writes the text the same way) recomputes it",
          );
        } finally {
          await connection.close();
        }
      } finally {
        await database.dispose();
      }
    });
  });
}
