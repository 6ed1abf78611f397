/**
 * Document frequencies over a large view, estimated from a sample of that
 * view instead of counted over every entry holding each word: the query's
 * own words (`words`) and pseudo-relevance feedback's candidates
 * (`estimate`).
 *
 * Counting a common word's matches over a view of 100,000 entries reads
 * most of the view (about 1.2 s for feedback's 100 candidates), while what
 * BM25 needs of it is an idf, which a relative error of a few per cent
 * hardly moves. So past `above` entries in the caller's view, a word's
 * frequency is its count in a sample of about `entries` of them, scaled to
 * the view; a word the sample holds fewer than `rareBelow` times is counted
 * over the whole view instead (it is rare, so that count reads few
 * entries), up to a cap, and, among feedback's candidates, only when it
 * could still enter the expansion.
 *
 * The sample's vocabulary (each word it holds at least `rareBelow` times,
 * and how often) is read in one statement and kept per view for
 * `vocabularyLifetimes` statistics lifetimes, so a question's words are
 * estimated without reading the sample again: an estimate from a thousand
 * entries moves less in a minute of writes than its own sampling error.
 *
 * The sample is view-sample.ts's: chosen by the sampled entries' own ids
 * and the view's size, so no entry the caller may not see and no other
 * tenant's changes it (invariants I-2 and I-7).
 */
import { createSqlParams, type SqlDatabase, type SqlParams } from "../db/sql-database.js";
import { accessPredicate } from "../filters/access-predicate.js";
import { trustFilter } from "../filters/trust-filter.js";
import type { Principal } from "../model/principal.js";
import { candidatesToCount, type FeedbackCandidate, type FeedbackOptions } from "./bm25-feedback.js";
import { quotedLexemeSql } from "./bm25-sql.js";
import { createKeptCounts, type DocumentFrequencyCache } from "./bm25-statistics.js";
import { keyBoundFor, sampleCondition, type ViewSampleSettings } from "./view-sample.js";

/** A word the sample holds fewer times than this is counted over the whole view. */
export const rareBelow = 4;

/**
 * Every word the sample (the view's entries whose key is below `keyBelow`)
 * holds at least `rareBelow` times, as rows (lexeme, frequency), and how
 * many entries it holds, as a row whose lexeme is NULL.
 */
export function sampleVocabularyStatement(principal: Principal, keyBelow: number, params: SqlParams): string {
  return `WITH sample AS MATERIALIZED (
       SELECT s.search_vector FROM entries s WHERE ${sampleCondition(principal, keyBelow, params)}
     )
     SELECT NULL::text AS lexeme, count(*)::float8 AS frequency FROM sample
     UNION ALL
     SELECT u.lexeme, count(*)::float8 FROM sample s CROSS JOIN LATERAL unnest(tsvector_to_array(s.search_vector)) u (lexeme)
     GROUP BY u.lexeme HAVING count(*) >= ${params.add(rareBelow)}`;
}

/**
 * Each of `lexemes`' document frequency over the view, counted up to `cap`:
 * the word's entries found by the full-text index alone (the subquery's
 * `OFFSET 0` keeps the planner from intersecting them with the tenant's
 * every entry, which costs more than a rare word's few matches), then the
 * access predicate on each, stopping at the cap.
 */
export function cappedFrequenciesStatement(
  principal: Principal,
  lexemes: readonly string[],
  cap: number,
  params: SqlParams,
): string {
  return `SELECT w.lexeme, (
       SELECT count(*) FROM (
         SELECT 1 FROM (
           SELECT m.* FROM entries m WHERE m.search_vector @@ (${quotedLexemeSql("w.lexeme", false)})::tsquery OFFSET 0
         ) s
         WHERE ${accessPredicate(principal, "s", params)} AND ${trustFilter("s", false)}
         LIMIT ${params.add(cap)}
       ) c
     )::float8 AS frequency
     FROM unnest(${params.add([...lexemes])}::text[]) AS w (lexeme)`;
}

/** A view's sample: how many entries it holds, and how often it holds each word it holds at least `rareBelow` times. */
interface SampleVocabulary {
  keyBelow: number;
  seen: number;
  frequencies: ReadonlyMap<string, number>;
}

/** How many statistics lifetimes a view's sample vocabulary is kept (see the top of this file). */
export const vocabularyLifetimes = 6;

/** Most views whose sample vocabulary is kept at once; the least recently read go first. */
const maxVocabularies = 64;

export interface SampledFrequencies {
  /** Whether a view of `documents` searchable entries has its frequencies estimated (the query's words and feedback's candidates). */
  applies(documents: number): boolean;
  /** Estimates kept for `view` less than their lifetime ago. */
  kept(view: string, lexemes: readonly string[]): Map<string, number>;
  /**
   * The frequency of each of `lexemes` (a query's own words): kept, else
   * estimated from the sample, else (rare in it) counted up to a cap.
   */
  words(
    principal: Principal,
    view: string,
    documents: number,
    lexemes: readonly string[],
  ): Promise<Map<string, number>>;
  /**
   * The frequencies of the `candidates` that could still enter an expansion
   * of `options.terms` words beside those `known`: estimated from the
   * sample, or counted when rare. A candidate left out cannot be chosen.
   */
  estimate(
    principal: Principal,
    view: string,
    documents: number,
    candidates: readonly FeedbackCandidate[],
    known: ReadonlyMap<string, number>,
    options: FeedbackOptions,
  ): Promise<Map<string, number>>;
}

/**
 * The sample vocabulary of a view over `db`, kept per view for `vocabularyLifetimes` × `ttlMs`: read with a key bound
 * of `keyBelow` (sampleVocabularyStatement), and read again when the kept one's bound is off by more than a factor of two.
 */
function createVocabularies(db: SqlDatabase, ttlMs: number) {
  const vocabularies = createKeptCounts<SampleVocabulary>(ttlMs * vocabularyLifetimes, maxVocabularies);
  const readVocabulary = async (principal: Principal, keyBelow: number): Promise<SampleVocabulary> => {
    const params = createSqlParams();
    const { rows } = await db.query<{ lexeme: string | null; frequency: number }>(
      sampleVocabularyStatement(principal, keyBelow, params),
      params.values,
    );
    return {
      keyBelow,
      seen: Number(rows.find((row) => row.lexeme === null)?.frequency ?? 0),
      frequencies: new Map(
        rows.flatMap((row) => (row.lexeme === null ? [] : [[row.lexeme, Number(row.frequency)] as const])),
      ),
    };
  };
  // A kept sample drawn with a key bound within a factor of two of today's is still a sample of about the wanted size:
  // estimates scale by the entries it holds, whatever its bound. Past that (the view grew or shrank), a sample of
  // today's size is read and kept in its place.
  return async (principal: Principal, view: string, keyBelow: number) => {
    const sample = await vocabularies.get(view, () => readVocabulary(principal, keyBelow));
    return sample.keyBelow * 2 >= keyBelow && sample.keyBelow <= keyBelow * 2
      ? sample
      : vocabularies.replace(view, () => readVocabulary(principal, keyBelow));
  };
}

/**
 * Sampled frequencies over `db`, as `settings` say, kept in `cache` (its
 * own, apart from the counts kept for smaller views); each view's sample
 * vocabulary is kept for `vocabularyLifetimes` × `ttlMs` (0 reads it for
 * every estimate).
 */
export function createSampledFrequencies(
  db: SqlDatabase,
  cache: DocumentFrequencyCache,
  settings: ViewSampleSettings,
  ttlMs = 0,
): SampledFrequencies {
  const vocabularyOf = createVocabularies(db, ttlMs);
  // An estimate past its lifetime is estimated again with the query (cheap), not in the background.
  const kept = (view: string, lexemes: readonly string[]) => {
    const { found, refresh } = cache.known(view, lexemes);
    for (const lexeme of refresh) found.delete(lexeme);
    return found;
  };
  /**
   * The frequencies of `words` over the view: from the sample when it holds a word at least `rareBelow` times (at
   * least the word's known `holders`), else counted up to a cap when `toCount` picks it; kept for the view.
   */
  const estimateOrCount = async <Word extends { lexeme: string; holders: number }>(
    principal: Principal,
    view: string,
    documents: number,
    words: readonly Word[],
    toCount: (rare: readonly Word[], estimates: ReadonlyMap<string, number>) => string[],
  ) => {
    const { seen, frequencies: inSample } = await vocabularyOf(
      principal,
      view,
      keyBoundFor(documents, settings.entries),
    );
    const estimates = new Map<string, number>();
    const rare: Word[] = [];
    for (const word of words) {
      const count = inSample.get(word.lexeme) ?? 0;
      if (count < rareBelow || seen === 0) rare.push(word);
      else
        estimates.set(word.lexeme, Math.min(documents, Math.max(word.holders, Math.round((count * documents) / seen))));
    }
    const counting = toCount(rare, estimates);
    if (counting.length > 0) {
      // At most twice the count a word the sample held `rareBelow` times would be estimated at: past it, not rare.
      const cap = Math.max(1, Math.ceil((2 * rareBelow * documents) / Math.max(seen, 1)));
      const params = createSqlParams();
      const { rows } = await db.query<{ lexeme: string; frequency: number }>(
        cappedFrequenciesStatement(principal, counting, cap, params),
        params.values,
      );
      for (const row of rows) estimates.set(row.lexeme, Number(row.frequency));
    }
    cache.keep(view, estimates);
    return estimates;
  };
  return {
    applies: (documents) => settings.entries > 0 && documents > settings.above,

    kept,

    async words(principal, view, documents, lexemes) {
      const found = kept(view, lexemes);
      const wanted = lexemes.filter((lexeme) => !found.has(lexeme));
      if (wanted.length === 0) return found;
      const fresh = await estimateOrCount(
        principal,
        view,
        documents,
        wanted.map((lexeme) => ({ lexeme, holders: 0 })),
        (rare) => rare.map((word) => word.lexeme),
      );
      return new Map([...found, ...fresh]);
    },

    async estimate(principal, view, documents, candidates, known, options) {
      const wanted = candidates.filter((candidate) => !known.has(candidate.lexeme));
      if (wanted.length === 0) return new Map();
      // A rare word is counted only if, at the idf its holders allow, it could still outweigh the words known now.
      return estimateOrCount(principal, view, documents, wanted, (rare, estimates) =>
        candidatesToCount(rare, new Map([...known, ...estimates]), documents, options),
      );
    },
  };
}
