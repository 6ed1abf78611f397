/**
 * Pseudo-relevance feedback for the full-text leg (RM3-style): the best
 * entries of a first BM25 pass are taken as relevant, the words they share
 * most (each weighted by how often an entry holds it for its length, by the
 * entry's share of the first pass's score and by its idf) expand the query,
 * and a second BM25 pass ranks by the expanded query interpolated with the
 * original. Every statistic (N, document frequencies) is counted over the
 * entries the caller may see, exactly as BM25's own (bm25-sql.ts), and the
 * feedback entries are among those the caller was shown, so nothing outside
 * the caller's view moves a term or a score (invariant I-7). Documented in
 * docs/retrieval.md.
 */
import { accessPredicate } from "../filters/access-predicate.js";
import {
  collectionThenCte,
  idf,
  quotedLexemePattern,
  quotedLexemeSql,
  tsquerySql,
  type FullTextQuery,
} from "./bm25-sql.js";
import type { SqlParams } from "../db/sql-database.js";
import type { Principal } from "../model/principal.js";
import type { SearchFilter } from "../model/search-filter.js";
import { entrySource, searchFilterConditions } from "../filters/search-filter-sql.js";
import { trustFilter } from "../filters/trust-filter.js";

/** How a feedback search expands its query. */
export interface FeedbackOptions {
  /** How many of the first pass's best entries are taken as relevant. */
  documents: number;
  /** How many expansion terms the second pass adds at most. */
  terms: number;
  /** The original query's share of the interpolated query, 0..1 (1: feedback changes nothing). */
  queryWeight: number;
  /**
   * The entries to take as relevant, best first, each with its weight (> 0),
   * instead of a first pass's best: a caller that fused several rankings
   * chooses them. Read under the access predicate and the filter like the
   * results, so an entry the caller may not see counts for nothing.
   */
  relevant?: { ids: readonly string[]; weights: readonly number[] } | undefined;
}

/** Bounds and defaults of the feedback knobs (the defaults chosen on Cranfield, checked on CISI; docs/retrieval.md). */
export const feedbackLimits = Object.freeze({
  defaultDocuments: 10,
  maxDocuments: 50,
  defaultTerms: 20,
  maxTerms: 100,
  defaultQueryWeight: 0.5,
  /**
   * Words of the feedback entries whose document frequencies are counted, the
   * most frequent in them first: bounds the statistics a feedback pass reads
   * however long the entries are.
   */
  candidateTerms: 100,
});

export const defaultFeedbackOptions: FeedbackOptions = Object.freeze({
  documents: feedbackLimits.defaultDocuments,
  terms: feedbackLimits.defaultTerms,
  queryWeight: feedbackLimits.defaultQueryWeight,
});

/** A word of the original query or of the feedback entries, with what selection needs to weigh it. */
export interface FeedbackTerm {
  lexeme: string;
  /** Σ over the feedback entries of (how often the entry holds it ÷ its length) × the entry's share of the first pass's score; 0 if none holds it. */
  feedbackWeight: number;
  /** How often the original query holds it; 0 for a word only the feedback entries hold. */
  repeats: number;
  /** Its document frequency over the searchable entries the caller may see. */
  frequency: number;
}

/** A weighted lexeme of a query. */
export interface WeightedLexeme {
  lexeme: string;
  weight: number;
}

/** The query the second pass ranks by, and the expansion terms chosen for it (for explain_query). */
export interface ExpandedQuery {
  /** The interpolated query: every original word and every expansion term, heaviest first; weights sum to the original query's word count. */
  query: WeightedLexeme[];
  /** The chosen expansion terms with their weight in the expansion model (summing to 1), heaviest first. */
  expansion: WeightedLexeme[];
}

const byWeight = (a: WeightedLexeme, b: WeightedLexeme) =>
  b.weight - a.weight || (a.lexeme < b.lexeme ? -1 : a.lexeme > b.lexeme ? 1 : 0);

/**
 * The expanded query: the `options.terms` words of the feedback entries
 * with the greatest feedback weight × idf (over `documents`, the caller's
 * N) form the expansion model, normalised to sum 1; the original query's
 * words, each by its repeats, normalised likewise; the two are mixed
 * `queryWeight : 1 − queryWeight` and scaled back to the original query's
 * word count, so with queryWeight 1 the second pass scores as plain BM25.
 */
export function selectExpansionTerms(
  terms: readonly FeedbackTerm[],
  documents: number,
  options: FeedbackOptions,
): ExpandedQuery {
  const expansionScores = terms
    .filter((term) => term.feedbackWeight > 0)
    .map((term) => ({ lexeme: term.lexeme, weight: term.feedbackWeight * idf(documents, term.frequency) }))
    .filter((term) => term.weight > 0)
    .sort(byWeight)
    .slice(0, options.terms);
  const expansionTotal = expansionScores.reduce((sum, term) => sum + term.weight, 0);
  const expansion =
    expansionTotal > 0
      ? expansionScores.map((term) => ({ lexeme: term.lexeme, weight: term.weight / expansionTotal }))
      : [];
  const originalTotal = terms.reduce((sum, term) => sum + term.repeats, 0);
  const mixed = new Map<string, number>();
  const queryShare = expansion.length === 0 ? 1 : options.queryWeight;
  for (const term of terms) if (term.repeats > 0) mixed.set(term.lexeme, (queryShare * term.repeats) / originalTotal);
  for (const term of expansion) mixed.set(term.lexeme, (mixed.get(term.lexeme) ?? 0) + (1 - queryShare) * term.weight);
  const query = [...mixed]
    .map(([lexeme, weight]) => ({ lexeme, weight: weight * Math.max(originalTotal, 1) }))
    .filter((term) => term.weight > 0)
    .sort(byWeight);
  return { query, expansion };
}

/**
 * Each first-pass hit's share of the summed score: the feedback entries'
 * weights. Scores at or below 0 count nothing; all of them so, each counts equally.
 */
export function feedbackShares(scores: readonly number[]): number[] {
  const positive = scores.map((score) => Math.max(score, 0));
  const total = positive.reduce((sum, score) => sum + score, 0);
  return total > 0 ? positive.map((score) => score / total) : scores.map(() => 1 / Math.max(scores.length, 1));
}

/**
 * The statement reading what selection needs: the original query's words
 * (`querytree` drops negated ones) with their repeats; the words of the
 * feedback entries `ids` (re-read under the access predicate, as of
 * `filter.asOf` when set) weighted by `shares`, the `candidateTerms`
 * heaviest kept; the document frequency of each over the searchable entries
 * the caller may see (as frequenciesCte counts them, grouped by lexeme, for
 * the same entries); and N (from `documents` now, counted as of an instant).
 * Rows: lexeme, feedback_weight, repeats, frequency, documents.
 */
export function feedbackStatement(
  principal: Principal,
  query: FullTextQuery,
  filter: SearchFilter,
  feedback: { ids: readonly string[]; shares: readonly number[] },
  documents: number | undefined,
  params: SqlParams,
): string {
  const historical = filter.asOf !== undefined;
  const lexemes = "(SELECT t.lexemes FROM terms t)";
  const anyTerm = "(SELECT t.any_term FROM terms t)";
  const source = entrySource(principal, filter, params, { ids: "(SELECT f.id FROM feedback f)" });
  const documentsSql = historical ? "(SELECT c.documents FROM collection c)" : `${params.add(documents ?? 0)}::float8`;
  return `WITH search_query AS MATERIALIZED (
       SELECT ${tsquerySql(query, params)} AS tsquery
     ), original AS MATERIALIZED (
       SELECT l.lexeme, count(*)::float8 AS repeats
       FROM search_query sq
       CROSS JOIN LATERAL regexp_matches(querytree(sq.tsquery)::text, ${params.add(quotedLexemePattern)}, 'g') AS x
       CROSS JOIN LATERAL (SELECT replace(replace(x[1], '''''', ''''), chr(92) || chr(92), chr(92)) AS lexeme) l
       GROUP BY l.lexeme
     ), feedback AS MATERIALIZED (
       SELECT f.id, f.share FROM unnest(${params.add([...feedback.ids])}::uuid[], ${params.add([...feedback.shares])}::float8[]) AS f (id, share)
     ), candidates AS MATERIALIZED (
       SELECT u.lexeme, sum(f.share * coalesce(cardinality(u.positions), 1) / greatest(e.search_length, 1) ORDER BY e.id)::float8 AS weight
       FROM feedback f JOIN ${source} e ON e.id = f.id CROSS JOIN LATERAL unnest(e.search_vector) u
       WHERE ${accessPredicate(principal, "e", params)}
       GROUP BY u.lexeme
       ORDER BY weight DESC, u.lexeme
       LIMIT ${params.add(feedbackLimits.candidateTerms)}
     ), terms AS MATERIALIZED (
       SELECT array_agg(w.lexeme ORDER BY w.lexeme) AS lexemes,
         coalesce(array_to_string(array_agg(${quotedLexemeSql("w.lexeme", false)}), ' | '), '')::tsquery AS any_term
       FROM (SELECT c.lexeme FROM candidates c UNION SELECT o.lexeme FROM original o) w
     )${historical ? `, ${collectionThenCte(principal, filter, params)}` : ""}, frequencies AS MATERIALIZED (
       SELECT u.lexeme, count(*)::float8 AS frequency
       FROM ${entrySource(principal, filter, params, { matching: anyTerm })} s
       CROSS JOIN LATERAL unnest(ts_filter(setweight(s.search_vector, 'A', ${lexemes}), '{a}')) u
       WHERE ${accessPredicate(principal, "s", params)} AND ${trustFilter("s", false)} AND s.search_vector @@ ${anyTerm}
       GROUP BY u.lexeme
     )
     SELECT w.lexeme, coalesce(c.weight, 0) AS feedback_weight, coalesce(o.repeats, 0) AS repeats,
       coalesce(fr.frequency, 0) AS frequency, ${documentsSql} AS documents
     FROM terms t CROSS JOIN LATERAL unnest(t.lexemes) AS w (lexeme)
     LEFT JOIN frequencies fr ON fr.lexeme = w.lexeme
     LEFT JOIN candidates c ON c.lexeme = w.lexeme
     LEFT JOIN original o ON o.lexeme = w.lexeme`;
}

/** A word of the feedback entries: its feedback weight (as FeedbackTerm's) and how many of the feedback entries hold it. */
export interface FeedbackCandidate {
  lexeme: string;
  feedbackWeight: number;
  holders: number;
}

/**
 * The statement reading the `candidateTerms` heaviest words of the
 * feedback entries `ids` (re-read now under the access predicate and
 * `filter`, so an id a caller chose counts only if the search could have
 * returned it), each weighted as feedbackStatement weighs it by `shares`,
 * with how many of them hold it. Rows: lexeme, feedback_weight, holders.
 */
export function feedbackCandidatesStatement(
  principal: Principal,
  filter: SearchFilter,
  feedback: { ids: readonly string[]; shares: readonly number[] },
  params: SqlParams,
): string {
  const conditions = [
    accessPredicate(principal, "e", params),
    ...searchFilterConditions(principal, { ...filter, asOf: undefined }, "e", params),
  ];
  // Summed in the entries' id order, whatever plan the join takes: a float sum's last bits depend on its order.
  return `SELECT u.lexeme, sum(f.share * coalesce(cardinality(u.positions), 1) / greatest(e.search_length, 1) ORDER BY e.id)::float8 AS feedback_weight, count(*)::float8 AS holders
     FROM unnest(${params.add([...feedback.ids])}::uuid[], ${params.add([...feedback.shares])}::float8[]) AS f (id, share)
     JOIN entries e ON e.id = f.id CROSS JOIN LATERAL unnest(e.search_vector) u
     WHERE ${conditions.join(" AND ")}
     GROUP BY u.lexeme
     ORDER BY feedback_weight DESC, u.lexeme
     LIMIT ${params.add(feedbackLimits.candidateTerms)}`;
}

/**
 * The candidates whose document frequencies must still be counted for
 * selectExpansionTerms to choose exactly what it would with every
 * candidate's frequency known; empty when `known` decides the choice.
 *
 * A candidate's expansion score, weight × idf(df), can be no higher than
 * weight × idf(holders): the feedback entries holding it are among the
 * entries its df counts, and idf falls as df grows. So once `options.terms`
 * candidates of known frequency score at least some s, a candidate whose
 * bound is below s cannot be chosen, and its frequency is never counted.
 * Common words, whose counts read the most entries, are the ones this
 * leaves out when their weight alone cannot lift them into the expansion.
 */
export function candidatesToCount(
  candidates: readonly FeedbackCandidate[],
  known: ReadonlyMap<string, number>,
  documents: number,
  options: FeedbackOptions,
): string[] {
  const scores = candidates
    .filter((candidate) => candidate.feedbackWeight > 0 && known.has(candidate.lexeme))
    .map((candidate) => candidate.feedbackWeight * idf(documents, known.get(candidate.lexeme) ?? 0))
    .filter((score) => score > 0)
    .sort((a, b) => b - a);
  const threshold = scores.length >= options.terms ? (scores[options.terms - 1] ?? 0) : 0;
  return candidates
    .filter((candidate) => candidate.feedbackWeight > 0 && !known.has(candidate.lexeme))
    .filter((candidate) => candidate.feedbackWeight * idf(documents, Math.max(candidate.holders, 1)) >= threshold)
    .map((candidate) => candidate.lexeme);
}

/**
 * The words of the expanded query `query` whose matches must widen a
 * second any-word pass; the others are left out of its match (never of
 * its scores). An added word's BM25 in any entry is at most its weight ×
 * idf × (k1 + 1) (`bound`), so an entry holding only added words from a set
 * whose bounds sum below `threshold` scores below it. With `threshold` at
 * most the score of the page's last hit (see the repository's use: every
 * first-pass hit scores at least queryWeight × its first-pass score in the
 * second pass), such an entry can never reach the page, and the lightest
 * added words, common ones above all, whose matches are most of the
 * entries, need not be matched.
 */
export function wideningLexemes(
  query: readonly WeightedLexeme[],
  original: ReadonlySet<string>,
  bound: (term: WeightedLexeme) => number,
  threshold: number,
): string[] {
  const added = query
    .filter((term) => !original.has(term.lexeme))
    .map((term) => ({ lexeme: term.lexeme, bound: bound(term) }))
    .sort((a, b) => a.bound - b.bound || (a.lexeme < b.lexeme ? -1 : a.lexeme > b.lexeme ? 1 : 0));
  let total = 0;
  let left = 0;
  // The margin keeps float rounding between TypeScript and SQL on the safe side.
  for (const term of added) {
    if (total + term.bound >= threshold * (1 - 1e-9)) break;
    total += term.bound;
    left++;
  }
  return added.slice(left).map((term) => term.lexeme);
}
