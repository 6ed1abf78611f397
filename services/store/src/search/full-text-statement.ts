/**
 * The full-text ranking statement: BM25 over the matching, visible,
 * filtered entries, cut to the page before any listing column is read.
 */
import { accessPredicate, type TenantMatch } from "../filters/access-predicate.js";
import type { SqlParams } from "../db/sql-database.js";
import type { Principal } from "../model/principal.js";
import type { SearchFilter } from "../model/search-filter.js";
import { entrySource, previewSourceColumn, searchFilterConditions } from "../filters/search-filter-sql.js";
import type { CollectionStatistics } from "./bm25-statistics.js";
import type { Bm25Parameters } from "./search-config.js";
import {
  collectionThenCte,
  frequenciesCte,
  idfSql,
  knownFrequenciesCte,
  quotedLexemePattern,
  quotedLexemeSql,
  termFrequencyBuckets,
  termFrequencySql,
  termPositionsCte,
  termsInSql,
  tsquerySql,
  type FullTextQuery,
} from "./bm25-sql.js";
import { headlineOptions, highlightTextLimit } from "./text-search.js";
import { entryColumns } from "../entries/entry-rows.js";

/** The listing columns of the row aliased `e` (a live entry, or one of `entrySource`'s rows under the same filter). */
export function listingColumns(filter: Pick<SearchFilter, "asOf">): string {
  return `${entryColumns}, ${previewSourceColumn(filter, "e")}`;
}

/** The query's own terms replaced by weighted whole lexemes (pseudo-relevance feedback's second pass; see bm25-feedback.ts). */
export interface WeightedTerms {
  lexemes: readonly string[];
  /** Each lexeme's weight in the query (what a repeat counts for a parsed query), > 0. */
  weights: readonly number[];
  /** Also match entries holding only some of `lexemes` (any-word mode), not just those matching the query. */
  widen: boolean;
  /**
   * With `widen`, only these of `lexemes` widen the match (default: all):
   * the words left out must be ones whose scores together cannot reach the
   * page (see bm25-feedback.ts, wideningLexemes).
   */
  widenBy?: readonly string[] | undefined;
}

/**
 * From this share of all entries up, a tenant's equality is checked on each
 * matching row instead of intersecting the full-text index's matches with the
 * tenant's index. The planner cannot see how many entries a query's words
 * match (the search query is computed in the statement), and a prepared
 * statement's plan does not know the tenant, so it assumes each tenant holds
 * an equal part and intersects. For a tenant holding most of the table that
 * reads all its keys to drop a few other rows (measured in
 * docs/performance.md, "A tenant holding most of the table"); a tenant
 * holding a tenth gains from the intersection.
 */
export const dominantTenantShare = 0.75;

/** How the ranking tests the caller's tenant: per row for a tenant holding most of the table, else by its index. */
export const tenantMatchFor = (collection: CollectionStatistics | undefined): TenantMatch =>
  (collection?.tenantShare ?? 0) >= dominantTenantShare ? "per-row" : "indexed";

/** How a full-text statement is built beyond the query, the filter and the page. */
export interface FullTextStatementOptions {
  highlight: boolean;
  bm25: Bm25Parameters;
  /** N and the average length now; undefined as of an instant (counted in the statement). */
  collection: CollectionStatistics | undefined;
  /** Rank by these terms instead of the query's own. */
  weighted?: WeightedTerms | undefined;
  /** Return only each hit's id and score, no listing columns. */
  rankOnly?: boolean;
  /**
   * Document frequencies already counted now (countFrequenciesStatement) for
   * every whole lexeme the statement ranks by: used instead of counting them
   * here. Not for a prefix query or as of an instant.
   */
  frequencies?: ReadonlyMap<string, number> | undefined;
  /**
   * Score term by term (termByTermScore): how many distinct lexemes the statement ranks by (the query's, counted as
   * the statement counts them, or the weighted ones), each then read by an expression of its own instead of by
   * unnesting every candidate's vector. Undefined: unnested. Not for a prefix query.
   */
  termCount?: number | undefined;
  /** Rank only these entries (re-scoring a fused ranking's candidates); undefined: every entry. */
  within?: readonly string[] | undefined;
  /**
   * Rank only these entries of an any-word query's matches: the candidates
   * of a pruned or seeded ranking (see bm25-pruning.ts). Every candidate is
   * still scored over all the query's terms. Only with the any-word mode,
   * now, without weighted terms.
   */
  candidates?: CandidateEntries | undefined;
}

/** Which of an any-word query's matches a pruned or seeded ranking ranks (whole lexemes, all of the query's own). */
export interface CandidateEntries {
  /** The entries holding every lexeme of one of these sets. */
  holding: readonly (readonly string[])[];
  /** Of those, leave out the entries holding every one of these lexemes (ranked already: their best are `ids`). */
  notHoldingAll?: readonly string[] | undefined;
  /** Rank these entries too, by id (each holds some of the query's words). */
  ids?: readonly string[] | undefined;
}

/**
 * The tsquery of `candidates` as SQL: an OR of ANDs (each lexeme quoted in SQL), less the entries holding every
 * lexeme of `notHoldingAll`. The full-text index answers it exactly, negation included.
 */
function candidateQuerySql(candidates: CandidateEntries, params: SqlParams): string {
  const { holding, notHoldingAll } = candidates;
  const sets = `(SELECT coalesce(string_agg(c.every_word, ' | '), '')::tsquery FROM (
            SELECT '(' || string_agg(${quotedLexemeSql("l.lexeme", false)}, ' & ') || ')' AS every_word
            FROM unnest(${params.add(holding.flat())}::text[], ${params.add(holding.flatMap((set, index) => set.map(() => index)))}::int[]) AS l (lexeme, word_set)
            GROUP BY l.word_set) c)`;
  if (notHoldingAll === undefined) return sets;
  return `(${sets} && !! (SELECT string_agg(${quotedLexemeSql("n.lexeme", false)}, ' & ')::tsquery
            FROM unnest(${params.add([...notHoldingAll])}::text[]) AS n (lexeme)))`;
}

/**
 * The `terms` CTE's body: the lexemes of the query's positive part (`querytree` drops negated words), sorted, each
 * with how often the query repeats it, and a tsquery matching any of them (`prefix`: each as a prefix); or, with
 * `weighted`, the given lexemes with their weights in place of repeats (and the tsquery widening the match).
 */
function termsCte(weighted: WeightedTerms | undefined, prefix: boolean, params: SqlParams): string {
  return weighted === undefined
    ? `SELECT array_agg(m.lexeme ORDER BY m.lexeme) AS lexemes, array_agg(m.repeats ORDER BY m.lexeme) AS repeats,
         coalesce(array_to_string(array_agg(${quotedLexemeSql("m.lexeme", prefix)}), ' | '), '')::tsquery AS any_term
       FROM (
         SELECT l.lexeme, count(*)::float8 AS repeats
         FROM search_query sq
         CROSS JOIN LATERAL regexp_matches(querytree(sq.tsquery)::text, ${params.add(quotedLexemePattern)}, 'g') AS x
         CROSS JOIN LATERAL (SELECT replace(replace(x[1], '''''', ''''), chr(92) || chr(92), chr(92)) AS lexeme) l
         GROUP BY l.lexeme
       ) m`
    : `SELECT array_agg(m.lexeme ORDER BY m.lexeme) AS lexemes, array_agg(m.weight ORDER BY m.lexeme) AS repeats,
         coalesce(array_to_string(array_agg(${quotedLexemeSql("m.lexeme", false)}), ' | '), '')::tsquery AS any_term
       ${
         weighted.widenBy === undefined
           ? ""
           : `, (SELECT coalesce(array_to_string(array_agg(${quotedLexemeSql("w.lexeme", false)}), ' | '), '')::tsquery
                FROM unnest(${params.add([...weighted.widenBy])}::text[]) AS w (lexeme)) AS widen_term`
       }
       FROM unnest(${params.add([...weighted.lexemes])}::text[], ${params.add([...weighted.weights])}::float8[]) AS m (lexeme, weight)`;
}

/** The `term_queries` CTE (queries): each lexeme of `lexemes` (a SQL text[]) as a tsquery of its own, in order. */
function termQueriesCte(lexemes: string): string {
  return `term_queries AS MATERIALIZED (
       SELECT array_agg((${quotedLexemeSql("l.lexeme", false)})::tsquery ORDER BY l.term) AS queries
       FROM unnest(${lexemes}) WITH ORDINALITY AS l (lexeme, term)
     )`;
}

/**
 * A candidate's BM25 as one sum over the query's `count` terms, each term's
 * frequency read by termFrequencySql, so no candidate's vector is unnested,
 * marked and filtered (that took half of an every-word ranking's time at
 * 100,000 entries). `tf (k1 + 1) / (tf + K)` is written `(k1 + 1) / (1 +
 * K / tf)` so each frequency is read once; a term the entry does not hold
 * adds 0. Should the statement's terms number other than `count` (it never
 * does: the caller counted them the statement's way), it falls back to
 * `heldTermsScore`.
 */
function termByTermScore(
  count: number,
  sql: { k1: string; lengthNorm: string; heldTermsScore: string },
  params: SqlParams,
): string {
  const buckets = `${params.add([...termFrequencyBuckets])}::float4[]`;
  const terms = Array.from({ length: count }, (_, index) => {
    const tf = termFrequencySql("e.search_vector", `(SELECT q.queries[${index + 1}] FROM term_queries q)`, buckets);
    return `coalesce(w.weights[${index + 1}] * (${sql.k1} + 1) / (1 + ${sql.lengthNorm} / nullif(${tf}, 0)), 0)`;
  });
  return `CASE WHEN (SELECT cardinality(t.lexemes) FROM terms t) = ${count} THEN ${terms.join(" + ")} ELSE ${sql.heldTermsScore} END`;
}

/**
 * The full-text statement: the page of matching, visible, filtered entries
 * ranked by BM25 with statistics over the entries the caller may see (so
 * neither another tenant's entries, invariant I-7, nor hidden entries of its
 * own tenant move a score), then their listing columns.
 *
 * - `search_query`: the tsquery, parsed once for the statement (every use
 *   below reads it through a scalar subquery, never re-parsing it per row).
 * - `terms`: the lexemes of the query's positive part (`querytree` drops
 *   negated words), sorted, each with how often the query repeats it, and a
 *   tsquery matching any of them; or, with `weighted`, the given lexemes
 *   with their weights in place of repeats.
 * - `term_positions`: each term's index into the lexemes, as a jsonb
 *   object (termPositionsCte), so a vector's kept lexemes find their terms
 *   by a binary search each.
 * - `frequencies`: each term's document frequency over the searchable
 *   entries the caller may see (see frequenciesCte).
 * - `weights`: each term's idf times its repeats. N and the average length
 *   are parameters (see countCollection); as of an instant, `collection`
 *   counts them, and `frequencies` counts, over what the caller may see as
 *   it was then.
 * - `page`: each candidate's BM25, summing over the terms its vector holds
 *   (for a prefix, every lexeme it starts counts towards its frequency), cut
 *   to the page before any listing column is read.
 */
export function fullTextStatement(
  principal: Principal,
  query: FullTextQuery,
  filter: SearchFilter,
  page: { limit: number; offset: number },
  options: FullTextStatementOptions,
  params: SqlParams,
): string {
  const { bm25, collection, weighted } = options;
  const parsed = tsquerySql(query, params);
  const tsquery = "(SELECT sq.tsquery FROM search_query sq)";
  const lexemes = "(SELECT t.lexemes FROM terms t)";
  const positions = "(SELECT tp.positions FROM term_positions tp)";
  const k1 = `${params.add(bm25.k1)}::float8`;
  const b = `${params.add(bm25.b)}::float8`;
  const historical = filter.asOf !== undefined;
  // Now: N and the average length from the caller (cached per caller view); as of an instant: counted here over what the caller could see then.
  const documents = !historical
    ? `${params.add(collection?.documents ?? 0)}::float8`
    : "(SELECT c.documents FROM collection c)";
  const averageLength = !historical
    ? `${params.add(Math.max(collection?.averageLength ?? 0, 1))}::float8`
    : "(SELECT c.average_length FROM collection c)";
  const prefix = query.mode === "prefix" && weighted === undefined;
  const anyTerm = "(SELECT t.any_term FROM terms t)";
  const lengthNorm = `${k1} * (1 - ${b} + ${b} * e.search_length / ${averageLength})`;
  const saturated = (tf: string) => `${tf} * (${k1} + 1) / (${tf} + ${lengthNorm})`;
  const heldTermsScore = `coalesce((SELECT sum(w.weights[f.term] * ${saturated("f.tf")}) FROM (${termsInSql("e.search_vector", { lexemes, positions }, prefix)}) f), 0)`;
  const scoredByTerm =
    !prefix && options.termCount !== undefined && options.termCount >= 1 ? options.termCount : undefined;
  const score =
    scoredByTerm === undefined
      ? heldTermsScore
      : termByTermScore(scoredByTerm, { k1, lengthNorm, heldTermsScore }, params);
  // With weighted terms in any-word mode, an entry holding only an expansion term matches too.
  const widenTerm = weighted?.widenBy === undefined ? anyTerm : "(SELECT t.widen_term FROM terms t)";
  const candidates =
    options.candidates !== undefined && query.mode === "any" && weighted === undefined && !historical
      ? options.candidates
      : undefined;
  // Candidates hold some of the query's words, so they all match it: their tsquery alone is the (narrower) match.
  const matching =
    candidates !== undefined
      ? candidateQuerySql(candidates, params)
      : weighted?.widen === true
        ? `(${tsquery} || ${widenTerm})`
        : tsquery;
  // The candidates given by id join those the index finds (the planner ORs the two indexes' bitmaps).
  const matches =
    candidates?.ids === undefined
      ? `e.search_vector @@ ${matching}`
      : `(e.search_vector @@ ${matching} OR e.id = ANY(${params.add([...candidates.ids])}::uuid[]))`;
  // Within given ids (at most a few hundred) each is fetched by its key and tested: written `IS TRUE`, the match is no
  // index condition, which the planner would otherwise intersect with the ids by reading every match of the query's
  // words from the full-text index (22,000 of them at 100,000 entries, for 136 ids).
  const conditions = [
    options.within === undefined ? matches : `(e.search_vector @@ ${matching}) IS TRUE`,
    accessPredicate(principal, "e", params, "read", tenantMatchFor(collection)),
    ...searchFilterConditions(principal, filter, "e", params),
  ];
  if (options.within !== undefined) conditions.unshift(`e.id = ANY(${params.add([...options.within])}::uuid[])`);
  // With as_of, the match is also pushed into the source, where the stored vectors' indexes serve it; the
  // listing reads only the page's entries (joined by id alone, it would build every matching row's columns).
  const source = entrySource(principal, filter, params, { matching });
  const terms = termsCte(weighted, prefix, params);
  const known = options.frequencies !== undefined && !historical && !prefix ? options.frequencies : undefined;
  const frequencies =
    known === undefined
      ? frequenciesCte(principal, filter, params, { lexemes, positions, anyTerm, prefix })
      : knownFrequenciesCte(known, lexemes, params);
  const ranked = `WITH search_query AS MATERIALIZED (
       SELECT ${parsed} AS tsquery
     ), terms AS MATERIALIZED (
       ${terms}
     ), ${termPositionsCte(lexemes)}${scoredByTerm === undefined ? "" : `, ${termQueriesCte(lexemes)}`}${historical ? `, ${collectionThenCte(principal, filter, params)}` : ""}, ${frequencies}, weights AS MATERIALIZED (
       SELECT array_agg(t.repeats[i] * ${idfSql(documents, "coalesce(f.frequency, 0)")} ORDER BY i) AS weights
       FROM terms t CROSS JOIN generate_subscripts(t.lexemes, 1) AS i LEFT JOIN frequencies f ON f.term = i
     ), page AS (
       SELECT e.id, e.created_at, ${score} AS score
       FROM ${source} e CROSS JOIN weights w
       WHERE ${conditions.join(" AND ")}
       ORDER BY score DESC, e.created_at DESC, e.id DESC
       LIMIT ${params.add(page.limit)} OFFSET ${params.add(page.offset)}
     )`;
  return pageStatement({ with: ranked }, principal, query, filter, options, params);
}

/**
 * Where a ranking statement's page comes from: `with`, its WITH clause
 * (ending in a CTE `page` with id, created_at and score, and holding
 * `search_query` when highlighting); or, with `rows`, the page as a
 * subquery (`(SELECT …)`, the same columns), which the statement reads in
 * its own FROM instead of through a CTE (only now: as of an instant the
 * page's ids narrow the versions read, which needs the CTE).
 */
export interface RankedPage {
  with: string;
  rows?: string;
}

/**
 * A ranking statement's end: the page of `ranked` read back as ids and
 * scores, or as the page's listing columns (and headlines), read under the
 * access predicate again.
 */
export function pageStatement(
  ranked: RankedPage,
  principal: Principal,
  query: FullTextQuery,
  filter: SearchFilter,
  options: Pick<FullTextStatementOptions, "highlight" | "rankOnly">,
  params: SqlParams,
): string {
  if (ranked.rows !== undefined && filter.asOf !== undefined)
    throw new Error("a page read as a subquery is a page of now, not of an instant");
  const page = ranked.rows === undefined ? "page" : `${ranked.rows} page`;
  if (options.rankOnly === true)
    return `${ranked.with} SELECT page.id, page.score FROM ${page} ORDER BY page.score DESC, page.created_at DESC, page.id DESC`;
  // Built only now: every parameter added must be used by the statement (an unused one has no type).
  const pageSource = entrySource(principal, filter, params, { ids: "(SELECT page.id FROM page)" });
  const headline = options.highlight
    ? `ts_headline(${params.add(query.language)}::regconfig, translate(left(e.text, ${highlightTextLimit}), chr(2) || chr(3) || chr(31), ''), (SELECT sq.tsquery FROM search_query sq), ${params.add(headlineOptions)})`
    : "NULL::text";
  return `${ranked.with}
     SELECT ${listingColumns(filter)}, page.score, ${headline} AS headline
     FROM ${page} JOIN ${pageSource} e ON e.id = page.id
     WHERE ${accessPredicate(principal, "e", params)}
     ORDER BY page.score DESC, page.created_at DESC, e.id DESC`;
}
