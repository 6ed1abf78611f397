/**
 * Document frequencies of pseudo-relevance feedback's candidate words over
 * a large view, estimated from a sample of that view instead of counted
 * over every entry holding them.
 *
 * Feedback's candidates are the words of its relevant entries, common ones
 * among them: counting each one's matches over a view of 100,000 entries
 * reads most of the view (about 1.2 s for 100 candidates), while what their
 * weights need is an idf, which a relative error of a few per cent hardly
 * moves. So past `above` entries in the caller's view, each candidate's
 * frequency is counted over a sample of about `entries` of them and scaled
 * to the view; a word the sample holds fewer than `rareBelow` times is
 * counted over the whole view instead (it is rare, so that count reads few
 * entries), up to a cap, and only when it could still enter the expansion.
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
import type { DocumentFrequencyCache } from "./bm25-statistics.js";
import { keyBoundFor, sampleCondition, type ViewSampleSettings } from "./view-sample.js";

/** A word the sample holds fewer times than this is counted over the whole view. */
export const rareBelow = 4;

/**
 * How often the sample (the view's entries whose key is below `keyBelow`)
 * holds each of `lexemes`, as rows (lexeme, frequency), and how many
 * entries it holds, as a row whose lexeme is NULL.
 */
export function sampledFrequenciesStatement(
  principal: Principal,
  lexemes: readonly string[],
  keyBelow: number,
  params: SqlParams,
): string {
  const array = `${params.add([...lexemes])}::text[]`;
  return `WITH sample AS MATERIALIZED (
       SELECT s.search_vector FROM entries s WHERE ${sampleCondition(principal, keyBelow, params)}
     )
     SELECT NULL::text AS lexeme, count(*)::float8 AS frequency FROM sample
     UNION ALL
     SELECT u.lexeme, count(*)::float8 FROM sample s CROSS JOIN LATERAL unnest(ts_filter(setweight(s.search_vector, 'A', ${array}), '{a}')) u
     GROUP BY u.lexeme`;
}

/** Each of `lexemes`' document frequency over the view, counted up to `cap` (a word's own index scan, stopping there). */
export function cappedFrequenciesStatement(
  principal: Principal,
  lexemes: readonly string[],
  cap: number,
  params: SqlParams,
): string {
  return `SELECT w.lexeme, (
       SELECT count(*) FROM (
         SELECT 1 FROM entries s
         WHERE ${accessPredicate(principal, "s", params)} AND ${trustFilter("s", false)} AND s.search_vector @@ (${quotedLexemeSql("w.lexeme", false)})::tsquery
         LIMIT ${params.add(cap)}
       ) c
     )::float8 AS frequency
     FROM unnest(${params.add([...lexemes])}::text[]) AS w (lexeme)`;
}

export interface FeedbackFrequencies {
  /** Whether a view of `documents` searchable entries has its candidates' frequencies estimated. */
  applies(documents: number): boolean;
  /** Estimates kept for `view` less than their lifetime ago. */
  kept(view: string, lexemes: readonly string[]): Map<string, number>;
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

/** Feedback frequencies over `db`, sampled as `settings` say, kept in `cache` (its own: estimates never rank a query's own words). */
export function createFeedbackFrequencies(
  db: SqlDatabase,
  cache: DocumentFrequencyCache,
  settings: ViewSampleSettings,
): FeedbackFrequencies {
  return {
    applies: (documents) => settings.entries > 0 && documents > settings.above,

    // An estimate past its lifetime is estimated again with the query (cheap), not in the background.
    kept(view, lexemes) {
      const { found, refresh } = cache.known(view, lexemes);
      for (const lexeme of refresh) found.delete(lexeme);
      return found;
    },

    async estimate(principal, view, documents, candidates, known, options) {
      const wanted = candidates.filter((candidate) => !known.has(candidate.lexeme));
      if (wanted.length === 0) return new Map();
      const keyBelow = keyBoundFor(documents, settings.entries);
      const params = createSqlParams();
      const { rows } = await db.query<{ lexeme: string | null; frequency: number }>(
        sampledFrequenciesStatement(
          principal,
          wanted.map((candidate) => candidate.lexeme),
          keyBelow,
          params,
        ),
        params.values,
      );
      const seen = Number(rows.find((row) => row.lexeme === null)?.frequency ?? 0);
      const inSample = new Map(
        rows.flatMap((row) => (row.lexeme === null ? [] : [[row.lexeme, Number(row.frequency)]])),
      );
      const estimates = new Map<string, number>();
      const rare: FeedbackCandidate[] = [];
      for (const candidate of wanted) {
        const count = inSample.get(candidate.lexeme) ?? 0;
        if (count < rareBelow || seen === 0) rare.push(candidate);
        else
          estimates.set(
            candidate.lexeme,
            Math.min(documents, Math.max(candidate.holders, Math.round((count * documents) / seen))),
          );
      }
      // A rare word is counted only if, at the idf its holders allow, it could still outweigh the words known now.
      const toCount = candidatesToCount(rare, new Map([...known, ...estimates]), documents, options);
      if (toCount.length > 0) {
        // At most twice the count a word the sample held `rareBelow` times would be estimated at: past it, not rare.
        const cap = Math.max(1, Math.ceil((2 * rareBelow * documents) / Math.max(seen, 1)));
        const countParams = createSqlParams();
        const { rows: counted } = await db.query<{ lexeme: string; frequency: number }>(
          cappedFrequenciesStatement(principal, toCount, cap, countParams),
          countParams.values,
        );
        for (const row of counted) estimates.set(row.lexeme, Number(row.frequency));
      }
      cache.keep(view, estimates);
      return estimates;
    },
  };
}
