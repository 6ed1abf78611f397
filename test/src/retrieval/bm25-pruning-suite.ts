/**
 * A pruned any-word ranking (the store ranks first the entries holding the
 * query's rarer words, and stops there when no other entry can reach the
 * page; or, when every word is common, the entries holding every word,
 * whose page sets a floor, then only the entries holding a set of words that
 * can reach it) gives exactly the full ranking's page: the same entries,
 * scores and order, on PGlite and a real PostgreSQL server. The corpus has
 * words most entries hold and words a few hold, so every outcome occurs: a
 * page the candidates prove, a page seeded by every word, and one neither
 * can settle, which is then ranked whole.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { metricsRegistry } from "@context-hub/common";
import { defaultSearchConfig, openSearch, type OpenSearch, type Principal } from "@context-hub/store/testing";
import { startRetrievalHarness, type RetrievalHarness, type RetrievalTarget } from "./retrieval-fixtures.js";
import { logger } from "../store/store-fixtures.js";

const tenant = "pruning";
const caller: Principal = { tenant, subject: "alice", groups: [], scopes: ["context:read"] };
const common = ["river", "stone", "light", "water", "field"];
const rare = Array.from({ length: 40 }, (_, index) => `rareword${String.fromCharCode(97 + (index % 26))}${index}`);
const uncommon = Array.from({ length: 10 }, (_, index) => `midword${String.fromCharCode(97 + index)}`);
const entries = 400;

/** A small deterministic generator, so the corpus and queries are the same on every run and target. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 4294967296;
  };
}

/**
 * Entry texts: each common word in about 30% of entries (repeated up to
 * three times), each uncommon word in about 8%, each rare word in about 2%,
 * and lengths from a few words to fifty, so that short entries of common
 * words alone outscore long ones holding an uncommon word.
 */
function corpus(): string[] {
  const random = seeded(11);
  return Array.from({ length: entries }, () => {
    const words: string[] = [];
    for (const word of common)
      if (random() < 0.3) words.push(...Array<string>(1 + Math.floor(random() * 3)).fill(word));
    for (const word of uncommon) if (random() < 0.08) words.push(word);
    for (const word of rare) if (random() < 0.02) words.push(word);
    words.push(...Array.from({ length: Math.floor(random() * 40) }, () => "filler"));
    return words.join(" ");
  });
}

/** Queries of common words with one or two rare words, with an uncommon one, alone (two to four of them), or repeated. */
function queries(): string[] {
  const random = seeded(23);
  const pick = (words: string[]) => words[Math.floor(random() * words.length)]!;
  return Array.from({ length: 48 }, (_, index) => {
    const words = [pick(common), pick(common)];
    if (index % 6 === 0 || index % 6 === 1) words.push(pick(rare));
    if (index % 6 === 1) words.push(pick(rare));
    if (index % 6 === 2) words.push(pick(uncommon));
    if (index % 6 === 4) words.push(pick(common));
    if (index % 6 === 5) words.push(pick(common), pick(common), words[0]!);
    return words.join(" ");
  });
}

async function prunedCounts(): Promise<Record<string, number>> {
  const metric = await metricsRegistry.getSingleMetric("contexthub_store_pruned_rankings_total")?.get();
  return Object.fromEntries((metric?.values ?? []).map((value) => [String(value.labels.outcome), value.value]));
}

export function defineBm25PruningSuite(target: RetrievalTarget): void {
  describe(`pruned any-word BM25 rankings on ${target.name}`, () => {
    let h: RetrievalHarness;
    let pruned: OpenSearch;
    let whole: OpenSearch;
    before(async () => {
      h = await startRetrievalHarness(target);
      await h.db.query(
        `INSERT INTO entries (id, tenant, thread_id, source, owner, text, text_length, preview, content_hash)
         SELECT gen_random_uuid(), $1, 'thread-' || (n % 20), 'agent', 'alice', t.text, length(t.text), left(t.text, 40), md5(n::text) || md5(n::text)
         FROM unnest($2::text[]) WITH ORDINALITY AS t (text, n)`,
        [tenant, corpus()],
      );
      const settings = { ...defaultSearchConfig, bm25StatisticsTtlMs: 0 };
      pruned = await openSearch(h.db, { ...settings, bm25Candidates: 40 }, logger);
      whole = await openSearch(h.db, { ...settings, bm25Candidates: 0 }, logger);
    });
    after(async () => {
      await pruned?.close();
      await whole?.close();
      await h?.close();
    });

    const page = async (search: OpenSearch, query: string, limit: number, offset: number, feedback = false) => {
      const reply = await search.service.fullText(caller, {
        query,
        mode: "any",
        language: "",
        filter: undefined,
        limit,
        offset,
        highlight: false,
        ...(feedback ? { feedback: { documents: 0, terms: 0, queryWeight: undefined } } : {}),
      });
      return [...reply.hits.map((hit) => `${hit.entryId} ${hit.score}`), JSON.stringify(reply.feedback ?? null)];
    };

    test("every page equals the full ranking's, and every outcome occurs: proved by the candidates, seeded by every word, or ranked whole", async () => {
      const before = await prunedCounts();
      for (const query of queries()) {
        for (const [limit, offset] of [
          [5, 0],
          [3, 2],
          [10, 0],
        ] as const) {
          const expected = await page(whole, query, limit, offset);
          assert.ok(expected.length > 1, query);
          assert.deepEqual(
            await page(pruned, query, limit, offset),
            expected,
            `${query} (limit ${limit}, offset ${offset})`,
          );
        }
      }
      // Pseudo-relevance feedback's first pass is pruned the same way; its expansion, and so its page, must not move.
      for (const query of queries().slice(0, 12)) {
        assert.deepEqual(
          await page(pruned, query, 5, 0, true),
          await page(whole, query, 5, 0, true),
          `${query} (feedback)`,
        );
      }
      const after = await prunedCounts();
      const grew = (outcome: string) => (after[outcome] ?? 0) - (before[outcome] ?? 0);
      assert.ok(grew("held") > 0, `some pages were proved by their candidates: ${JSON.stringify(after)}`);
      assert.ok(grew("seeded") > 0, `some pages were seeded by every word: ${JSON.stringify(after)}`);
      assert.ok(grew("ranked_all") > 0, `some pages could not be, and were ranked whole: ${JSON.stringify(after)}`);
    });

    test("a word no entry held when its frequency was kept still finds the entries written since", async () => {
      // Frequencies kept for a minute: the new word's 0 is still what both searches know after the write.
      const settings = { ...defaultSearchConfig, bm25StatisticsTtlMs: 60_000 };
      const keptPruned = await openSearch(h.db, { ...settings, bm25Candidates: 40 }, logger);
      const keptWhole = await openSearch(h.db, { ...settings, bm25Candidates: 0 }, logger);
      try {
        // A rare word whose entries outscore the common word's ceiling: those entries alone would settle the page.
        const query = `${rare[3]} ${common[0]} newcomer`;
        assert.deepEqual(await page(keptPruned, query, 3, 0), await page(keptWhole, query, 3, 0));
        const { rows } = await h.db.query<{ id: string }>(
          `INSERT INTO entries (id, tenant, thread_id, source, owner, text, text_length, preview, content_hash)
           VALUES (gen_random_uuid(), $1, 'thread-new', 'agent', 'alice', 'newcomer', 8, 'newcomer', md5('new') || md5('new'))
           RETURNING id`,
          [tenant],
        );
        const expected = await page(keptWhole, query, 3, 0);
        assert.ok(expected[0]!.startsWith(rows[0]!.id), `the new entry ranks first: ${expected[0]}`);
        assert.deepEqual(await page(keptPruned, query, 3, 0), expected);
        await h.db.query("DELETE FROM entries WHERE id = $1", [rows[0]!.id]);
      } finally {
        await keptPruned.close();
        await keptWhole.close();
      }
    });
  });
}
