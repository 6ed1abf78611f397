/**
 * Full-text ranking with pseudo-relevance feedback (bm25-feedback.ts): a
 * first pass (or the caller's chosen entries), the expansion terms their
 * words give, and a second pass by the expanded query; now, frequencies come
 * from the ranker's caches, as of an instant the statements count them.
 */
import { createSqlParams, type SqlDatabase } from "../db/sql-database.js";
import type { CollectionStatistics } from "./bm25-statistics.js";
import type { Principal } from "../model/principal.js";
import type { Bm25Parameters } from "./search-config.js";
import type { SearchFilter } from "../model/search-filter.js";
import {
  candidatesToCount,
  feedbackCandidatesStatement,
  feedbackShares,
  feedbackStatement,
  selectExpansionTerms,
  wideningLexemes,
  type FeedbackCandidate,
  type FeedbackOptions,
  type FeedbackTerm,
  type WeightedLexeme,
} from "./bm25-feedback.js";
import { idf, type FullTextQuery } from "./bm25-sql.js";
import { fullTextStatement } from "./full-text-statement.js";
import type { FullTextRanker, RunStatement } from "./full-text-ranker.js";
import { visibilityKey } from "./ranking-statistics.js";
import type { FeedbackUsed, FullTextRow, SearchRepository } from "./search-ports.js";

/** A feedback search's arguments (SearchRepository.fullTextWithFeedback). */
interface FeedbackSearch {
  principal: Principal;
  query: FullTextQuery;
  filter: SearchFilter;
  page: { limit: number; offset: number };
  highlight: boolean;
  feedback: FeedbackOptions;
  idsOnly: boolean;
}

/**
 * Pseudo-relevance feedback with every document frequency counted inside
 * the statements (feedbackStatement, then the second pass): as of an
 * instant, where each statistic is as of then and nothing is kept.
 */
async function feedbackCountedInStatements(
  db: SqlDatabase,
  run: RunStatement,
  options: {
    bm25: Bm25Parameters;
    collection: CollectionStatistics | undefined;
    termCount: number | undefined;
    oneByOne: FullTextRanker["oneByOne"];
  },
  search: FeedbackSearch,
): Promise<{ rows: FullTextRow[]; feedback: FeedbackUsed }> {
  const { principal, query, filter, page, feedback, idsOnly } = search;
  const statementOptions = {
    highlight: search.highlight,
    bm25: options.bm25,
    collection: options.collection,
    rankOnly: idsOnly,
    termCount: options.termCount,
  };
  const firstParams = createSqlParams();
  const first = await db.query<{ id: string; score: number }>(
    fullTextStatement(
      principal,
      query,
      filter,
      { limit: feedback.documents, offset: 0 },
      { ...statementOptions, highlight: false, rankOnly: true },
      firstParams,
    ),
    firstParams.values,
  );
  if (first.rows.length === 0) return { rows: [], feedback: { documents: 0, terms: [] } };
  const statsParams = createSqlParams();
  const shares = feedbackShares(first.rows.map((row) => Number(row.score)));
  const { rows: terms } = await db.query<{
    lexeme: string;
    feedback_weight: number;
    repeats: number;
    frequency: number;
    documents: number;
  }>(
    feedbackStatement(
      principal,
      query,
      filter,
      { ids: first.rows.map((row) => row.id), shares },
      options.collection?.documents,
      statsParams,
    ),
    statsParams.values,
  );
  const expanded = selectExpansionTerms(
    terms.map((term) => ({
      lexeme: term.lexeme,
      feedbackWeight: Number(term.feedback_weight),
      repeats: Number(term.repeats),
      frequency: Number(term.frequency),
    })),
    Number(terms[0]?.documents ?? 0),
    feedback,
  );
  const params = createSqlParams();
  if (expanded.expansion.length === 0 || expanded.query.length === 0) {
    return {
      rows: await run(idsOnly)(fullTextStatement(principal, query, filter, page, statementOptions, params), params),
      feedback: { documents: 0, terms: [] },
    };
  }
  const lexemes = expanded.query.map((term) => term.lexeme);
  const weighted = { lexemes, weights: expanded.query.map((term) => term.weight), widen: query.mode === "any" };
  const second = { ...statementOptions, weighted, termCount: options.oneByOne(lexemes.length) };
  const rows = await run(idsOnly)(fullTextStatement(principal, query, filter, page, second, params), params);
  return { rows, feedback: { documents: first.rows.length, terms: expanded.expansion } };
}

/** The deepest page (offset + limit) a feedback search's first pass reads as far as, to bound its second pass. */
const maxBoundingDepth = 1_000;

/**
 * How many of a tenant's own BM25 index's best entries a feedback search
 * takes as its first pass (or the page, when deeper); the second pass
 * re-scores those alone.
 */
export const indexedRescoreDepth = 200;

/** A feedback search ranked now, its frequencies read beside the statements: optionally only within given entries. */
interface KeptFeedbackSearch extends FeedbackSearch {
  within: readonly string[] | undefined;
}

/** The query's own terms and their document frequencies (FullTextRanker.queryFrequencies). */
type QueryCounts = Awaited<ReturnType<FullTextRanker["queryFrequencies"]>>;

/** The feedback entries (ids and their shares), from the caller's choice or from the first pass. */
interface FeedbackEntries {
  ids: string[];
  shares: number[];
}

/**
 * A feedback search's first pass now: the caller's chosen entries, or the best by the query alone (from the tenant's
 * own BM25 index when it answers, else in SQL), with the second pass's statement options and the entries it re-scores.
 */
async function feedbackFirstPass(
  ranker: FullTextRanker,
  search: KeptFeedbackSearch,
  collection: CollectionStatistics | undefined,
  original: QueryCounts,
) {
  const { principal, query, filter, page, highlight, feedback, idsOnly, within } = search;
  const depth = page.offset + page.limit;
  const chosen =
    feedback.relevant === undefined ? undefined : await ranker.relevantEntries(principal, filter, feedback.relevant);
  // A tenant with its own BM25 index: the first pass is the index's best (its order, its statistics), and the second
  // pass re-scores those alone instead of every entry holding any of the expanded query's words, which over a large
  // tenant is most of it (the index answers only searches it can: otherwise undefined, and both passes run in SQL).
  const indexedFirst =
    chosen === undefined && within === undefined
      ? await ranker.indexedPage(
          principal,
          query,
          filter,
          { limit: Math.max(indexedRescoreDepth, depth, feedback.documents), offset: 0 },
          { highlight: false, rankOnly: true },
          original.terms,
        )
      : undefined;
  const rescored = within ?? indexedFirst?.map((row) => row.id);
  const options = {
    highlight,
    bm25: ranker.ranking.bm25,
    collection,
    rankOnly: idsOnly,
    frequencies: original.frequencies,
    termCount: ranker.oneByOne(original.terms.size),
    within: rescored,
  };
  // First pass (unless the caller chose the entries): the best entries by the query alone, ids and scores only; as
  // deep as the page when it can be, so that its last score bounds the second pass's page (below).
  const firstRows =
    chosen === undefined
      ? (indexedFirst ??
        (await ranker.firstPass(
          principal,
          query,
          filter,
          depth <= maxBoundingDepth ? Math.max(feedback.documents, depth) : feedback.documents,
          options,
          original,
        )))
      : [];
  const first: FeedbackEntries = chosen ?? {
    ids: firstRows.slice(0, feedback.documents).map((row) => row.id),
    shares: feedbackShares(firstRows.slice(0, feedback.documents).map((row) => Number(row.score))),
  };
  return { depth, chosen, rescored, options, firstRows, first };
}

/** The words the feedback entries hold that may expand the query, with their feedback weights and holders. */
async function expansionCandidates(
  db: SqlDatabase,
  principal: Principal,
  filter: SearchFilter,
  first: FeedbackEntries,
): Promise<FeedbackCandidate[]> {
  const candidateParams = createSqlParams();
  const { rows: candidateRows } = await db.query<{ lexeme: string; feedback_weight: number; holders: number }>(
    feedbackCandidatesStatement(principal, filter, first, candidateParams),
    candidateParams.values,
  );
  return candidateRows.map((row) => ({
    lexeme: row.lexeme,
    feedbackWeight: Number(row.feedback_weight),
    holders: Number(row.holders),
  }));
}

/**
 * The document frequencies of the query's words and of the candidates that could still enter the expansion, for the
 * caller's view: kept ones first, the rest counted (candidatesToCount) or, over a large view, estimated from a sample.
 */
async function candidateFrequencies(
  ranker: FullTextRanker,
  search: KeptFeedbackSearch,
  collection: CollectionStatistics | undefined,
  original: QueryCounts,
  candidates: FeedbackCandidate[],
) {
  const { principal, feedback } = search;
  const { capped, frequencySource, sampledFrequencies } = ranker;
  const view = visibilityKey(principal);
  // Only the candidates that could still enter the expansion are counted (candidatesToCount), in one statement; over
  // a large view they are estimated from a sample of it instead (sampled-frequencies.ts). A count wins over an estimate.
  const documents = collection?.documents ?? 0;
  const sampled = sampledFrequencies.applies(documents);
  const candidateLexemes = candidates.map((candidate) => candidate.lexeme);
  // The query's words first, then kept estimates, then kept counts (a count replaces an estimate): the order of the
  // words is the order the second pass sums their scores in, so it must not depend on what happens to be kept.
  const estimated = sampled ? sampledFrequencies.kept(view, candidateLexemes) : new Map<string, number>();
  const counted = frequencySource.kept(principal, view, candidateLexemes);
  const kept = capped(
    new Map([
      ...original.frequencies,
      ...[...estimated].filter(([lexeme]) => !original.frequencies.has(lexeme) && !counted.has(lexeme)),
      ...counted,
    ]),
    collection,
  );
  return capped(
    sampled
      ? new Map([
          ...kept,
          ...(await sampledFrequencies.estimate(principal, view, documents, candidates, kept, feedback)),
        ])
      : await frequencySource.frequencies(
          principal,
          view,
          [...kept.keys(), ...candidatesToCount(candidates, kept, documents, feedback)],
          kept,
        ),
    collection,
  );
}

/** The query's words and the counted candidates, each with its feedback weight, repeats in the query and frequency. */
function feedbackTerms(
  original: QueryCounts,
  candidates: FeedbackCandidate[],
  frequencies: ReadonlyMap<string, number>,
): FeedbackTerm[] {
  const byLexeme = new Map(candidates.map((candidate) => [candidate.lexeme, candidate]));
  const lexemes = new Set([
    ...original.terms.keys(),
    ...candidates.filter((candidate) => frequencies.has(candidate.lexeme)).map((candidate) => candidate.lexeme),
  ]);
  return [...lexemes].map((lexeme) => ({
    lexeme,
    feedbackWeight: byLexeme.get(lexeme)?.feedbackWeight ?? 0,
    repeats: original.terms.get(lexeme) ?? 0,
    frequency: frequencies.get(lexeme) ?? 0,
  }));
}

/**
 * Pseudo-relevance feedback now, over frequencies kept per view: the first
 * pass, the candidates' frequencies (kept, counted or estimated), the
 * expansion, and the second pass by the expanded query.
 */
async function feedbackWithKeptFrequencies(
  db: SqlDatabase,
  ranker: FullTextRanker,
  search: KeptFeedbackSearch,
  collection: CollectionStatistics | undefined,
): Promise<{ rows: FullTextRow[]; feedback: FeedbackUsed }> {
  const { principal, query, filter, page, feedback, idsOnly } = search;
  const { ranking, run } = ranker;
  const original = await ranker.queryFrequencies(principal, query, collection);
  const { depth, chosen, rescored, options, firstRows, first } = await feedbackFirstPass(
    ranker,
    search,
    collection,
    original,
  );
  const plain = async () => ({
    rows: await ranker.rankPage(run(idsOnly), principal, query, filter, page, options, original),
    feedback: { documents: 0, terms: [] },
  });
  if (first.ids.length === 0)
    return chosen === undefined ? { rows: [], feedback: { documents: 0, terms: [] } } : plain();
  const candidates = await expansionCandidates(db, principal, filter, first);
  const documents = collection?.documents ?? 0;
  const frequencies = await candidateFrequencies(ranker, search, collection, original, candidates);
  const expanded = selectExpansionTerms(feedbackTerms(original, candidates, frequencies), documents, feedback);
  if (expanded.expansion.length === 0 || expanded.query.length === 0) return plain();
  // Second pass: the page ranked by the interpolated query, every word's frequency already known; in any-word mode
  // an entry holding only an expansion term matches too.
  const params = createSqlParams();
  // An entry the first pass ranked scores at least queryWeight × its first score in the second pass (every original
  // word keeps at least that share of its weight, with the same df), so the first pass's score at the page's depth
  // times queryWeight is at most the second page's last score; expansion words whose bounds sum below it need not widen the match.
  // Ranking only given entries, every expansion word widens the match: there are few of them to score.
  const floor =
    chosen === undefined && rescored === undefined && firstRows.length >= depth && depth <= maxBoundingDepth
      ? feedback.queryWeight * Number(firstRows[depth - 1]?.score ?? 0)
      : 0;
  const bound = (term: WeightedLexeme) =>
    term.weight * idf(documents, frequencies.get(term.lexeme) ?? 0) * (ranking.bm25.k1 + 1);
  const weighted = {
    lexemes: expanded.query.map((term) => term.lexeme),
    weights: expanded.query.map((term) => term.weight),
    widen: query.mode === "any",
    widenBy: floor > 0 ? wideningLexemes(expanded.query, new Set(original.terms.keys()), bound, floor) : undefined,
  };
  const rows = await run(idsOnly)(
    fullTextStatement(
      principal,
      query,
      filter,
      page,
      { ...options, weighted, frequencies, termCount: ranker.oneByOne(weighted.lexemes.length) },
      params,
    ),
    params,
  );
  return { rows, feedback: { documents: first.ids.length, terms: expanded.expansion } };
}

/** SearchRepository.fullTextWithFeedback over `ranker`'s parts. */
export function createFeedbackRanking(
  db: SqlDatabase,
  ranker: FullTextRanker,
): SearchRepository["fullTextWithFeedback"] {
  return async (principal, query, filter, page, highlight, feedback, idsOnly = false, within = undefined) => {
    const collection = await ranker.collectionOf(principal, filter);
    if (!ranker.countsAside(query, filter))
      return feedbackCountedInStatements(
        db,
        ranker.run,
        {
          bm25: ranker.ranking.bm25,
          collection,
          termCount: await ranker.termCountOf(query, undefined),
          oneByOne: ranker.oneByOne,
        },
        { principal, query, filter, page, highlight, feedback, idsOnly },
      );
    return feedbackWithKeptFrequencies(
      db,
      ranker,
      { principal, query, filter, page, highlight, feedback, idsOnly, within },
      collection,
    );
  };
}
