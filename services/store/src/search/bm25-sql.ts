/**
 * The SQL pieces BM25 ranking and pseudo-relevance feedback share: a query's
 * tsquery, a term's frequency in a stored vector, the collection statistics
 * of an earlier instant and the document frequencies of a set of terms, each
 * counted over exactly the searchable entries the caller may see (so neither
 * another tenant, invariant I-7, nor a hidden entry of its own tenant moves
 * a statistic).
 */
import { accessPredicate } from "../filters/access-predicate.js";
import type { SqlParams } from "../db/sql-database.js";
import type { Principal } from "../model/principal.js";
import type { SearchFilter } from "../model/search-filter.js";
import { entrySource } from "../filters/search-filter-sql.js";
import { trustFilter } from "../filters/trust-filter.js";
import { toLexemeQuery, type FullTextMode } from "./text-search.js";

/** A full-text query as the repository runs it. */
export interface FullTextQuery {
  mode: FullTextMode;
  text: string;
  /** A text-search configuration name already checked against the allow-list. */
  language: string;
}

/**
 * The tsquery of a query as SQL over parameters. The parser functions never
 * raise on any input; the prefix and any-word modes pass `to_tsquery` only
 * words stripped of every syntax character (see `toLexemeQuery`).
 */
export function tsquerySql(query: FullTextQuery, params: SqlParams): string {
  const language = `${params.add(query.language)}::regconfig`;
  switch (query.mode) {
    case "match":
      return `plainto_tsquery(${language}, ${params.add(query.text)})`;
    case "phrase":
      return `phraseto_tsquery(${language}, ${params.add(query.text)})`;
    case "boolean":
      return `websearch_to_tsquery(${language}, ${params.add(query.text)})`;
    case "prefix":
    case "any":
      return `to_tsquery(${language}, ${params.add(toLexemeQuery(query.text, query.mode))})`;
  }
}

/**
 * What a tsquery's text form quotes as a lexeme: `'…'` with `'` (and `\`)
 * doubled inside, possibly followed by `:*` (a prefix) or weights.
 */
export const quotedLexemePattern = "'((?:[^']|'')*)'";

/** The lexeme column `column` quoted for tsquery input (a quote doubled, a backslash escaped), as a prefix when `prefix`. */
export const quotedLexemeSql = (column: string, prefix: boolean) =>
  `'''' || replace(replace(${column}, chr(92), chr(92) || chr(92)), '''', '''''') || '''' || ${prefix ? "':*'" : "''"}`;

/**
 * The terms of `terms.lexemes` (a SQL text[]) a stored vector holds, as rows
 * (term: the 1-based index into the lexemes, tf: how often the vector holds
 * it). For a prefix, the positions of every lexeme it starts count (a
 * stripped lexeme, which has none, counts once). For whole lexemes, setweight
 * marks the query's lexemes (a binary search each) and ts_filter keeps only
 * them, so SQL never walks the document's other lexemes; stored vectors carry
 * weight D only (to_tsvector's), so nothing else is kept. Each kept lexeme's
 * index is looked up in `terms.positions` (termPositionsCte's jsonb, a binary
 * search), not searched for along the array: feedback's expanded queries hold
 * about a hundred lexemes, and a search along them took 40 % of its re-scoring.
 */
export function termsInSql(vector: string, terms: { lexemes: string; positions: string }, prefix: boolean): string {
  return prefix
    ? `SELECT i AS term, sum(coalesce(cardinality(u.positions), 1))::float8 AS tf
         FROM unnest(${vector}) u CROSS JOIN generate_subscripts(${terms.lexemes}, 1) AS i
         WHERE starts_with(u.lexeme, (${terms.lexemes})[i]) GROUP BY i`
    : `SELECT (${terms.positions} ->> u.lexeme)::int AS term, cardinality(u.positions)::float8 AS tf
         FROM unnest(ts_filter(setweight(${vector}, 'A', ${terms.lexemes}), '{a}')) u`;
}

/** PostgreSQL's MAXNUMPOS: the most positions a vector keeps of one lexeme (to_tsvector keeps 255), so the most tf can be. */
export const maxTermPositions = 256;

/**
 * `ts_rank('{1,1,1,1}', vector, 'lexeme')` for a vector holding the lexeme
 * `tf` times, in float4 arithmetic step by step as PostgreSQL computes it
 * (tsrank.c, calc_rank_or: Σ 1/j² over its positions, then ÷ π²/6). It
 * grows strictly with `tf` up to far beyond maxTermPositions, the gap
 * between neighbours (about 1/tf² ÷ 1.64) staying far above a float4's
 * rounding.
 */
export function singleTermRank(tf: number): number {
  if (tf <= 0) return 0;
  let sum = 0;
  // Each step in double, then rounded to float4, is exactly float4 arithmetic (53 ≥ 2 × 24 + 2 bits).
  for (let j = 1; j <= tf; j++) sum = Math.fround(sum + Math.fround(1 / (j * j)));
  return Math.fround(Math.fround(Math.fround(1 + sum) - 1) / 1.64493406685);
}

/**
 * The midpoints between the single-term ranks of 0, 1, …, maxTermPositions
 * occurrences, ascending: `width_bucket(rank, these)` counts the midpoints
 * at or below a rank, which is the term frequency it came from.
 */
export const termFrequencyBuckets: readonly number[] = Array.from(
  { length: maxTermPositions },
  (_, tf) => (singleTermRank(tf) + singleTermRank(tf + 1)) / 2,
);

/**
 * How often a stored vector holds one whole lexeme, as SQL, without
 * unnesting the vector: its single-term `ts_rank` (a binary search for the
 * lexeme, then a walk over its positions, in C) read back as a count by
 * `width_bucket` over `buckets` (termFrequencyBuckets as a SQL float4[]).
 * `lexemeQuery`: the lexeme as a tsquery. The count is the vector's
 * positions of the lexeme, as `cardinality(positions)` of its unnest row.
 */
export const termFrequencySql = (vector: string, lexemeQuery: string, buckets: string) =>
  `width_bucket(ts_rank('{1,1,1,1}'::float4[], ${vector}, ${lexemeQuery}), ${buckets})`;

/**
 * The `term_positions` CTE (positions): a jsonb object giving each lexeme of
 * `lexemes` (a SQL text[]) its 1-based index there, the first when a lexeme
 * is repeated (as array_position would).
 */
export function termPositionsCte(lexemes: string): string {
  return `term_positions AS MATERIALIZED (
       SELECT coalesce(jsonb_object_agg(x.lexeme, x.term), '{}'::jsonb) AS positions
       FROM (
         SELECT DISTINCT ON (l.lexeme) l.lexeme, l.term
         FROM unnest(${lexemes}) WITH ORDINALITY AS l (lexeme, term)
         ORDER BY l.lexeme, l.term
       ) x
     )`;
}

/**
 * The `collection` CTE (documents, average_length) as of `filter.asOf`: N
 * and the average length over what the caller could see then. Now, the
 * repository passes them as parameters instead (cached per caller view).
 */
export function collectionThenCte(principal: Principal, filter: SearchFilter, params: SqlParams): string {
  return `collection AS MATERIALIZED (
       SELECT count(*)::float8 AS documents, greatest(coalesce(avg(s.search_length), 0), 1)::float8 AS average_length
       FROM ${entrySource(principal, filter, params)} s WHERE ${accessPredicate(principal, "s", params)} AND ${trustFilter("s", false)}
     )`;
}

/**
 * The `frequencies` CTE (term, frequency): each term of `lexemes`' document
 * frequency over the searchable entries the caller may see (current,
 * neither quarantined nor rejected; as they were at `filter.asOf` when set),
 * counted in one pass over the GIN index's matches of `anyTerm` (for a
 * prefix, the entries holding any lexeme it starts).
 */
export function frequenciesCte(
  principal: Principal,
  filter: SearchFilter,
  params: SqlParams,
  terms: { lexemes: string; positions: string; anyTerm: string; prefix: boolean },
): string {
  const source = `${entrySource(principal, filter, params, { matching: terms.anyTerm })} s`;
  const searchable = `${accessPredicate(principal, "s", params)} AND ${trustFilter("s", false)} AND s.search_vector @@ ${terms.anyTerm}`;
  return `frequencies AS MATERIALIZED (
       SELECT f.term, ${terms.prefix ? "count(DISTINCT s.id)" : "count(*)"}::float8 AS frequency
       FROM ${source} CROSS JOIN LATERAL (${termsInSql("s.search_vector", terms, terms.prefix)}) f
       WHERE ${searchable}
       GROUP BY f.term
     )`;
}

/**
 * The lexemes of the positive part of the tsquery `tsquery` (SQL; `querytree`
 * drops negated words) with how often the query repeats each, as rows
 * (lexeme, repeats).
 */
export function queryLexemesSql(tsquery: string, params: SqlParams): string {
  return `SELECT l.lexeme, count(*)::float8 AS repeats
       FROM regexp_matches(querytree(${tsquery})::text, ${params.add(quotedLexemePattern)}, 'g') AS x
       CROSS JOIN LATERAL (SELECT replace(replace(x[1], '''''', ''''), chr(92) || chr(92), chr(92)) AS lexeme) l
       GROUP BY l.lexeme`;
}

/** The statement reading a query's own lexemes and their repeats (rows lexeme, repeats), parsed as the full-text statement parses it. */
export function queryTermsStatement(query: FullTextQuery, params: SqlParams): string {
  return `WITH search_query AS MATERIALIZED (SELECT ${tsquerySql(query, params)} AS tsquery)
     ${queryLexemesSql("(SELECT sq.tsquery FROM search_query sq)", params)}`;
}

/**
 * The statement counting each of `lexemes`' document frequency now over the
 * searchable entries `principal` may see (current, neither quarantined nor
 * rejected), in one pass over the GIN index's matches of any of them, as
 * frequenciesCte counts them. Rows (lexeme, frequency) for the lexemes some
 * entry holds; a lexeme without a row has frequency 0.
 */
export function countFrequenciesStatement(principal: Principal, lexemes: readonly string[], params: SqlParams): string {
  const array = `${params.add([...lexemes])}::text[]`;
  return `WITH terms AS MATERIALIZED (
       SELECT coalesce(array_to_string(array_agg(${quotedLexemeSql("w.lexeme", false)}), ' | '), '')::tsquery AS any_term
       FROM unnest(${array}) AS w (lexeme)
     )
     SELECT u.lexeme, count(*)::float8 AS frequency
     FROM entries s CROSS JOIN LATERAL unnest(ts_filter(setweight(s.search_vector, 'A', ${array}), '{a}')) u
     WHERE ${accessPredicate(principal, "s", params)} AND ${trustFilter("s", false)} AND s.search_vector @@ (SELECT t.any_term FROM terms t)
     GROUP BY u.lexeme`;
}

/**
 * The `frequencies` CTE (term, frequency) from frequencies already known
 * (counted by countFrequenciesStatement, or kept from such a count): each
 * given lexeme's index into `lexemes` (SQL) beside its frequency.
 */
export function knownFrequenciesCte(known: ReadonlyMap<string, number>, lexemes: string, params: SqlParams): string {
  // In lexeme order, not the map's: the map's order follows what happened to be kept, and the rows' order is the order
  // a score's terms are summed in, so a score would differ in its last bits from one call to the next.
  const sorted = [...known].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `frequencies AS MATERIALIZED (
       SELECT array_position(${lexemes}, k.lexeme) AS term, k.frequency
       FROM unnest(${params.add(sorted.map(([lexeme]) => lexeme))}::text[], ${params.add(sorted.map(([, frequency]) => frequency))}::float8[]) AS k (lexeme, frequency)
     )`;
}

/** BM25's idf of a term found in `frequency` of `documents` entries, as SQL. */
export const idfSql = (documents: string, frequency: string) =>
  `ln(1 + (${documents} - ${frequency} + 0.5) / (${frequency} + 0.5))`;

/** The same idf in TypeScript, for terms whose frequencies were counted by `frequenciesCte`. */
export const idf = (documents: number, frequency: number) =>
  Math.log(1 + (documents - frequency + 0.5) / (frequency + 0.5));
