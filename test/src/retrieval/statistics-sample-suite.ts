/**
 * Full-text statistics of a large view estimated from a sample of it
 * (search/view-sample.ts): BM25's entry count and average length, and
 * pseudo-relevance feedback's candidate words' document frequencies
 * (search/sampled-frequencies.ts), run unchanged against PGlite and a real
 * PostgreSQL server: estimates near the true counts, rare words counted
 * outright, and the sample chosen by the view alone, so entries the caller
 * may not see (another member's private ones, another tenant's) change no
 * estimate and no ranking (invariants I-2 and I-7), while the caller's own
 * new entries do.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  createDocumentFrequencyCache,
  createSampledFrequencies,
  defaultSearchConfig,
  estimateCollection,
  openSearch,
  type OpenSearch,
  type Principal,
} from "@context-hub/store/testing";
import { startRetrievalHarness, type RetrievalHarness, type RetrievalTarget } from "./retrieval-fixtures.js";
import {
  commitText,
  insertEntryRow,
  logger,
  newTenant,
  principal,
  type PrincipalInit,
} from "../store/store-fixtures.js";

const asPrincipal = (init: PrincipalInit): Principal => ({
  tenant: init.tenant ?? "",
  subject: init.subject ?? "",
  groups: init.groups ?? [],
  scopes: init.scopes ?? [],
});

/** The corpus: `size` entries; "wing" in every second, "spar" in every tenth, "keel" in two. */
const size = 300;
const textOf = (index: number) =>
  [
    `note${index}`,
    index % 2 === 0 ? "wing" : "rotor",
    index % 10 === 0 ? "spar" : "blade",
    index === 7 || index === 8 ? "keel" : "hull",
  ].join(" ");

const options = { documents: 10, terms: 20, queryWeight: 0.5 };
const candidates = [
  { lexeme: "wing", feedbackWeight: 0.3, holders: 1 },
  { lexeme: "spar", feedbackWeight: 0.3, holders: 1 },
  { lexeme: "keel", feedbackWeight: 0.3, holders: 1 },
];
/** An id whose sample key (its last two bytes) is `key`, so which sample holds the entry is known. */
const idWith = (serial: number, key: number) =>
  `00000000-0000-7000-8000-${serial.toString(16).padStart(8, "0")}${key.toString(16).padStart(4, "0")}`;

/** About a fifth of the view is sampled: a 60-entry sample of the 300. */
const sample = { entries: 60, above: 1 };

export function defineStatisticsSampleSuite(target: RetrievalTarget): void {
  describe(`full-text statistics from a sample of the view on ${target.name}`, () => {
    let h: RetrievalHarness;
    let search: OpenSearch;
    const tenant = newTenant("prf-sample");
    const owner = principal(tenant, "owner");
    const colleague = principal(tenant, "colleague");
    const outsider = principal(newTenant("prf-sample-other"), "outsider");
    before(async () => {
      h = await startRetrievalHarness(target);
      search = await openSearch(
        h.db,
        { ...defaultSearchConfig, bm25StatisticsTtlMs: 0, statisticsSample: sample },
        logger,
      );
      for (let index = 0; index < size; index++) await commitText(h.client, owner, "corpus", textOf(index));
    });
    after(async () => {
      await search?.close();
      await h?.close();
    });

    const estimate = (documents = size) =>
      createSampledFrequencies(h.db, createDocumentFrequencyCache(0), sample).estimate(
        asPrincipal(owner),
        "view",
        documents,
        candidates,
        new Map(),
        options,
      );

    const expanded = async () => {
      const reply = await search.service.fullText(asPrincipal(owner), {
        query: "wing",
        mode: "any",
        language: "",
        filter: undefined,
        limit: 20,
        offset: 0,
        highlight: false,
        feedback: { documents: 5, terms: 5, queryWeight: 0.5 },
      });
      return { hits: reply.hits.map((hit) => [hit.entryId, hit.score]), feedback: reply.feedback };
    };

    test("common words are estimated near their counts and a rare word is counted outright", async () => {
      const frequencies = await estimate();
      const wing = frequencies.get("wing") ?? 0;
      // 150 true; the sample holds about 30 of them, so the estimate's spread is about ±13 % (a wide margin here).
      assert.ok(wing >= 75 && wing <= 225, `wing estimated at ${wing}`);
      const spar = frequencies.get("spar") ?? 0;
      assert.ok(spar >= 8 && spar <= 90, `spar estimated at ${spar}`);
      assert.equal(frequencies.get("keel"), 2, "a word the sample barely holds is counted");
    });

    test("a query's own words are estimated from the same sample, a rare one counted, each kept for the view", async () => {
      const frequencies = createSampledFrequencies(h.db, createDocumentFrequencyCache(60_000), sample);
      const words = await frequencies.words(asPrincipal(owner), "view", size, ["wing", "keel", "absent"]);
      const wing = words.get("wing") ?? 0;
      assert.ok(wing >= 75 && wing <= 225, `wing estimated at ${wing}`);
      assert.equal(words.get("keel"), 2, "a word the sample barely holds is counted");
      assert.equal(words.get("absent"), 0, "a word no entry holds counts 0");
      assert.deepEqual(frequencies.kept("view", ["wing", "keel", "absent"]), words);
    });

    test("a view no larger than the threshold is not sampled", () => {
      const frequencies = createSampledFrequencies(h.db, createDocumentFrequencyCache(0), {
        entries: 60,
        above: size,
      });
      assert.equal(frequencies.applies(size), false);
      assert.equal(frequencies.applies(size + 1), true);
      assert.equal(createSampledFrequencies(h.db, createDocumentFrequencyCache(0), sample).applies(0), false);
      assert.equal(
        createSampledFrequencies(h.db, createDocumentFrequencyCache(0), { entries: 0, above: 1 }).applies(10_000),
        false,
        "0 entries always counts",
      );
    });

    test("entries the caller may not see change no estimate and no feedback ranking; its own new entries do", async () => {
      const estimates = await estimate();
      const ranking = await expanded();
      assert.ok((ranking.feedback?.terms.length ?? 0) > 0, JSON.stringify(ranking.feedback));
      // Another member's private entries and another tenant's, all holding the candidates, a hundred of each (distinct texts: no folding).
      for (let index = 0; index < 100; index++) {
        await commitText(h.client, colleague, "hidden", `wing spar keel hull hidden${index}`);
        await commitText(h.client, outsider, "theirs", `wing spar keel hull theirs${index}`);
      }
      assert.deepEqual(await estimate(), estimates);
      assert.deepEqual(await expanded(), ranking);
      // Positive control: the owner's own entries holding the rare word are counted. Their keys lie past the sample
      // (a fifth of the keys), so "keel" stays rare whichever keys the first two drew, and is counted outright.
      for (let index = 0; index < 3; index++)
        await insertEntryRow(h.db, {
          id: idWith(0xc0de00 + index, 0xff00 + index),
          tenant,
          owner: "owner",
          text: `keel wing extra${index}`,
        });
      const moved = await estimate(size + 3);
      assert.equal(moved.get("keel"), 5);
    });

    describe("the view's entry count and average length", () => {
      const viewTenant = newTenant("stats-sample-view");
      const reader = principal(viewTenant, "reader");
      const rows = 2_000;
      /** An id whose sample key (its last two bytes) is `key`: the rows' keys are spread evenly, so each sample is known. */
      const settings = { entries: 200, above: 500 };
      before(async () => {
        // Lengths 4 and 2 in turn: an average of 3 in every sample of consecutive keys.
        for (let index = 0; index < rows; index++)
          await insertEntryRow(h.db, {
            id: idWith(index, Math.floor((index * 65_536) / rows)),
            tenant: viewTenant,
            owner: "reader",
            text: index % 2 === 0 ? "wing lift spar drag" : "wing lift",
          });
      });

      test("a large view is estimated from about the sample's size, a small one counted", async () => {
        const estimate = await estimateCollection(h.db, asPrincipal(reader), settings);
        // The probe (a 64th of the keys) finds 32 entries, too few, so about 200 are sampled: 196 of them, × 65,536 / 6,400.
        assert.deepEqual(estimate, { documents: 2_007, averageLength: 3 });
        assert.equal(await estimateCollection(h.db, asPrincipal(reader), { entries: 200, above: 5_000 }), undefined);
        assert.equal(await estimateCollection(h.db, asPrincipal(reader), { entries: 0, above: 1 }), undefined);
      });

      test("BM25 ranks with the estimates: N, the average length and the query word's frequency", async () => {
        const sampledSearch = await openSearch(
          h.db,
          { ...defaultSearchConfig, bm25StatisticsTtlMs: 0, statisticsSample: settings },
          logger,
        );
        try {
          const reply = await sampledSearch.service.fullText(asPrincipal(reader), {
            query: "spar",
            mode: "any",
            language: "",
            filter: undefined,
            limit: 1,
            offset: 0,
            highlight: false,
          });
          // "spar" is in 1,000 entries, each of length 4 (tf 1); N 2,007 and average length 3 from the sample, and its
          // frequency too: the sample for N = 2,007 (keys below 6,531) holds 200 entries, 100 of them with "spar",
          // so 100 × 2,007 / 200 = 1,003.5, rounded to 1,004 (not the count, 1,000).
          const [k1, b, n, df, length, average] = [1.2, 0.75, 2_007, 1_004, 4, 3];
          const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
          const expected = (idf * (k1 + 1)) / (1 + k1 * (1 - b + (b * length) / average));
          const score = reply.hits[0]?.score ?? 0;
          assert.ok(Math.abs(score - expected) < 1e-9 * expected, `score ${score}, expected ${expected}`);
        } finally {
          await sampledSearch.close();
        }
      });

      test("entries the caller may not see change no estimate; its own do", async () => {
        const before = await estimateCollection(h.db, asPrincipal(reader), settings);
        // A colleague's private entries and another tenant's, every one with a key inside both samples.
        const foreign = newTenant("stats-sample-foreign");
        for (let index = 0; index < 300; index++) {
          await insertEntryRow(h.db, { id: idWith(rows + index, index), tenant: viewTenant, owner: "colleague" });
          await insertEntryRow(h.db, { id: idWith(rows + 300 + index, index), tenant: foreign, owner: "reader" });
        }
        assert.deepEqual(await estimateCollection(h.db, asPrincipal(reader), settings), before);
        for (let index = 0; index < 30; index++)
          await insertEntryRow(h.db, { id: idWith(rows + 600 + index, index), tenant: viewTenant, owner: "reader" });
        assert.notDeepEqual(await estimateCollection(h.db, asPrincipal(reader), settings), before);
      });
    });
  });
}
