import { accessPredicate } from "../filters/access-predicate.js";
import {
  createCollectionStatisticsCache,
  createDocumentFrequencyCache,
  type CollectionStatistics,
} from "./bm25-statistics.js";
import { counter } from "@context-hub/common";
import { createFrequencySource } from "./bm25-frequencies.js";
import { planPruning, prunedPageHolds } from "./bm25-pruning.js";
import { queryTokens, type TenantBm25Indexes } from "./bm25-indexes.js";
import { indexedFullTextStatement, indexedPageHolds } from "./bm25-index-statement.js";
import { createSqlParams, type SqlDatabase, type SqlExecutor, type SqlParams } from "../db/sql-database.js";
import type { StoredEntry } from "../model/entry-model.js";
import { toStoredEntry, type EntryRow } from "../entries/entry-rows.js";
import type { Principal } from "../model/principal.js";
import { defaultSearchConfig, type Bm25Parameters } from "./search-config.js";
import type { SearchFilter } from "../model/search-filter.js";
import { entrySource, searchFilterConditions } from "../filters/search-filter-sql.js";
import { trustFilter } from "../filters/trust-filter.js";
import {
  candidatesToCount,
  feedbackCandidatesStatement,
  feedbackShares,
  feedbackStatement,
  selectExpansionTerms,
  wideningLexemes,
  type FeedbackOptions,
  type WeightedLexeme,
} from "./bm25-feedback.js";
import { idf, tsquerySql, type FullTextQuery } from "./bm25-sql.js";
import { fullTextStatement, listingColumns, type FullTextStatementOptions } from "./full-text-statement.js";
import type { TrustState } from "../model/trust.js";

export type { FullTextQuery } from "./bm25-sql.js";
export { fullTextStatement, type FullTextStatementOptions, type WeightedTerms } from "./full-text-statement.js";

export interface FullTextRow {
  id: string;
  /** The listing; undefined when only ids and scores were asked for. */
  entry: StoredEntry | undefined;
  score: number;
  /** ts_headline output when highlighting was asked for. */
  headline: string | undefined;
}

/** What a feedback search used: how many entries it took as relevant and the expansion terms it added, heaviest first. */
export interface FeedbackUsed {
  documents: number;
  terms: WeightedLexeme[];
}

export interface GrepCandidate {
  id: string;
  threadId: string;
  createdAt: Date;
  /** The length of the text in UTF-16 code units; the text itself is read separately (`grepTexts`), a bounded page at a time. */
  textLength: number;
  /** The state of the text read (under `as_of`, that version's; see entrySource). */
  trustState: TrustState;
}

/** Where a keyset page of grep candidates continues: after this entry in newest-first order. */
export interface GrepCursor {
  createdAt: Date;
  id: string;
}

/**
 * Every SQL statement of search. Each composes the access predicate and the
 * filters (the trust filter and valid time among them) before its limit, and
 * reads what the store held at `filter.asOf` when it is set.
 */
export interface SearchRepository {
  /**
   * One page of the visible, filtered entries matching the query, best BM25
   * first (ties: newer first, then the greater id); with `idsOnly`, each
   * hit's id and score without its listing (highlight is then ignored).
   */
  fullText(
    principal: Principal,
    query: FullTextQuery,
    filter: SearchFilter,
    page: { limit: number; offset: number },
    highlight: boolean,
    idsOnly?: boolean,
    within?: readonly string[],
  ): Promise<FullTextRow[]>;
  /**
   * The same page ranked with pseudo-relevance feedback (bm25-feedback.ts):
   * a first pass finds the best `feedback.documents` entries, their words
   * expand the query, a second pass ranks by it. With `feedback.relevant`
   * (now only), those entries are taken as relevant instead and no first
   * pass runs; with `within` (now only), only those entries are ranked, and
   * in any-word mode every expansion word matches them. Not for prefix queries.
   */
  fullTextWithFeedback(
    principal: Principal,
    query: FullTextQuery,
    filter: SearchFilter,
    page: { limit: number; offset: number },
    highlight: boolean,
    feedback: FeedbackOptions,
    idsOnly?: boolean,
    within?: readonly string[],
  ): Promise<{ rows: FullTextRow[]; feedback: FeedbackUsed }>;
  /** Whether the query reduces to nothing searchable (only stop words or punctuation). */
  isEmptyQuery(query: FullTextQuery): Promise<boolean>;
  /**
   * The visible entries among `ids` that pass `filter` (the trust filter and
   * valid time included; `asOf` is not read here), as listings (preview, no
   * text). Any order. Re-checks a vector index's candidates in the database.
   */
  listings(principal: Principal, ids: readonly string[], filter: SearchFilter): Promise<StoredEntry[]>;
  /** The ids among `ids` that `listings` would return, without reading their listings. */
  visibleIds(principal: Principal, ids: readonly string[], filter: SearchFilter): Promise<Set<string>>;
  /** The first `chars` characters of each visible entry's text, by id; quarantined and rejected entries' texts are never handed out here. */
  texts(principal: Principal, items: readonly { id: string; chars: number }[]): Promise<Map<string, string>>;
  /**
   * The next `limit` visible, filtered entries after `cursor`, newest first,
   * with their texts; with `literal`, only those whose text contains it
   * (the caller rechecks, so the test may be looser than the real match).
   */
  grepCandidates(
    principal: Principal,
    filter: SearchFilter,
    literal: string | undefined,
    cursor: GrepCursor | undefined,
    limit: number,
  ): Promise<GrepCandidate[]>;
  /** The texts of `ids` (candidates `grepCandidates` returned) as the filter reads them, by id, under the same access predicate. */
  grepTexts(principal: Principal, filter: SearchFilter, ids: readonly string[]): Promise<Map<string, string>>;
  /** A value of `search_settings`. */
  setting(key: string): Promise<string | undefined>;
  /**
   * Whether the caller can see chunks embedded by other models (or at other
   * dimensions) and none by this one: the store was embedded by another
   * model than the query's. Judged over the entries the caller may see only,
   * so it says nothing about anyone else's (invariant I-2).
   */
  embeddedByOtherModels(principal: Principal, model: string, dimension: number): Promise<boolean>;
  /** The text-search configurations the database ships (pg_catalog). */
  builtinLanguages(): Promise<string[]>;
}

/** An entry row as a listing selects it: no text or by-id extras, and always the preview source column. */
type ListingRow = Omit<EntryRow, "text" | "node_summaries" | "chunk_count" | "embedding_model" | "preview_source"> & {
  /** An earlier version's head of text, when `preview` is NULL (see previewSourceColumn). */
  preview_source: string | null;
};

const live: Pick<SearchFilter, "asOf"> = { asOf: undefined };

/** A listed entry: the shared row mapping, with no text, image bytes or node summaries. */
function toListing(row: ListingRow): StoredEntry {
  return toStoredEntry(row, undefined);
}

/**
 * N and the average length over the searchable entries `principal` may see:
 * those a default search may return to it (current, neither quarantined nor
 * rejected). Entries it may not see count nowhere, so they cannot move its
 * scores.
 */
async function countCollection(db: SqlDatabase, principal: Principal): Promise<CollectionStatistics> {
  const params = createSqlParams();
  const { rows } = await db.query<{ documents: string; average_length: number | null }>(
    `SELECT count(*) AS documents, avg(s.search_length)::float8 AS average_length FROM entries s WHERE ${accessPredicate(principal, "s", params)} AND ${trustFilter("s", false)}`,
    params.values,
  );
  return { documents: Number(rows[0]?.documents ?? 0), averageLength: Number(rows[0]?.average_length ?? 0) };
}

/** What decides which entries a principal sees: its statistics are kept under this key, never shared with another view. */
function visibilityKey(principal: Principal): string {
  return JSON.stringify([
    principal.tenant,
    principal.subject,
    [...principal.groups].sort(),
    [...principal.scopes].sort(),
  ]);
}

/** Runs a ranking statement: the listed rows, or ids and scores only. */
type RunStatement = (idsOnly: boolean) => (statement: string, params: SqlParams) => Promise<FullTextRow[]>;

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
  options: { bm25: Bm25Parameters; collection: CollectionStatistics | undefined },
  search: FeedbackSearch,
): Promise<{ rows: FullTextRow[]; feedback: FeedbackUsed }> {
  const { principal, query, filter, page, feedback, idsOnly } = search;
  const statementOptions = {
    highlight: search.highlight,
    bm25: options.bm25,
    collection: options.collection,
    rankOnly: idsOnly,
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
  const weighted = {
    lexemes: expanded.query.map((term) => term.lexeme),
    weights: expanded.query.map((term) => term.weight),
    widen: query.mode === "any",
  };
  const rows = await run(idsOnly)(
    fullTextStatement(principal, query, filter, page, { ...statementOptions, weighted }, params),
    params,
  );
  return { rows, feedback: { documents: first.rows.length, terms: expanded.expansion } };
}

const indexedRankings = counter(
  "contexthub_store_indexed_rankings_total",
  "Full-text rankings (whole words, now) served by the caller's tenant's own BM25 index, by outcome: ranked; ranked_in_sql (a search matching more than any word found too few matches among the index's best); fell_back (the index was gone; ranked in SQL).",
  ["outcome"],
);

const prunedRankings = counter(
  "contexthub_store_pruned_rankings_total",
  "Any-word full-text rankings that scored their rarer words' entries first, by outcome: held (that page was the full ranking's) or ranked_all (every match was then scored).",
  ["outcome"],
);

/**
 * Most distinct words an every-word, phrase or web-search query may have for a tenant's index to rank it; a longer
 * one ranks in SQL (on Cranfield's questions, about nine words after stop words, no entry holds them all).
 */
const maxIndexedEveryWordTerms = 4;

/** The deepest page (offset + limit) a feedback search's first pass reads as far as, to bound its second pass. */
const maxBoundingDepth = 1_000;

/** How the repository ranks full text. */
export interface FullTextRanking {
  bm25: Bm25Parameters;
  /** How long a caller's N, average length and document frequencies are reused before they are counted again; 0 counts them for every query. */
  statisticsTtlMs: number;
  /** Most entries a pruned any-word ranking scores first (bm25-pruning.ts); 0 ranks every match. */
  candidates: number;
}

/**
 * The search repository over a migrated database; full text ranks by BM25 as
 * `ranking` says, a whole-word search of a tenant with its own BM25 index
 * (`indexes`, see bm25-indexes.ts) inside that index.
 */
export function createSearchRepository(
  db: SqlDatabase,
  ranking: FullTextRanking = {
    bm25: defaultSearchConfig.bm25,
    statisticsTtlMs: defaultSearchConfig.bm25StatisticsTtlMs,
    candidates: defaultSearchConfig.bm25Candidates,
  },
  indexes: Pick<TenantBm25Indexes, "indexOf" | "reload"> = { indexOf: () => undefined, reload: async () => {} },
): SearchRepository {
  const statistics = createCollectionStatisticsCache(ranking.statisticsTtlMs);
  const collectionOf = async (principal: Principal, filter: SearchFilter) =>
    filter.asOf === undefined
      ? await statistics.get(visibilityKey(principal), () => countCollection(db, principal))
      : undefined;
  const listedBy =
    (executor: SqlExecutor) =>
    async (statement: string, params: SqlParams): Promise<FullTextRow[]> => {
      const { rows } = await executor.query<ListingRow & { score: number; headline: string | null }>(
        statement,
        params.values,
      );
      return rows.map((row) => ({
        id: row.id,
        entry: toListing(row),
        score: Number(row.score),
        headline: row.headline ?? undefined,
      }));
    };
  // Ids and scores only: the page is cut inside the statement under the access predicate, and no listing column is read.
  const rankedBy =
    (executor: SqlExecutor) =>
    async (statement: string, params: SqlParams): Promise<FullTextRow[]> => {
      const { rows } = await executor.query<{ id: string; score: number }>(statement, params.values);
      return rows.map((row) => ({ id: row.id, entry: undefined, score: Number(row.score), headline: undefined }));
    };
  const listed = listedBy(db);
  const ranked = rankedBy(db);
  const run = (idsOnly: boolean) => (idsOnly ? ranked : listed);
  const frequencyCache = createDocumentFrequencyCache(ranking.statisticsTtlMs);
  const frequencySource = createFrequencySource(db, frequencyCache);
  // Now and over whole lexemes, document frequencies are read beside the ranking statement (kept per caller view);
  // as of an instant, or for a prefix, the ranking statement counts them itself.
  const countsAside = (query: FullTextQuery, filter: SearchFilter) =>
    filter.asOf === undefined && query.mode !== "prefix";
  // A kept frequency can be a little newer than the kept N: capped at N, an idf stays positive.
  const capped = (frequencies: ReadonlyMap<string, number>, collection: CollectionStatistics | undefined) =>
    new Map(
      [...frequencies].map(([lexeme, frequency]) => [lexeme, Math.min(frequency, collection?.documents ?? frequency)]),
    );
  const queryFrequencies = async (
    principal: Principal,
    query: FullTextQuery,
    collection: CollectionStatistics | undefined,
  ) => {
    const terms = await frequencySource.queryTerms(query);
    return {
      terms,
      frequencies: capped(
        await frequencySource.frequencies(principal, visibilityKey(principal), terms.keys()),
        collection,
      ),
    };
  };

  const visibleConditions = (principal: Principal, ids: readonly string[], filter: SearchFilter, params: SqlParams) =>
    [
      `e.id = ANY(${params.add(ids)}::uuid[])`,
      accessPredicate(principal, "e", params),
      ...searchFilterConditions(principal, { ...filter, asOf: undefined }, "e", params),
    ].join(" AND ");
  const visible = async (principal: Principal, ids: readonly string[], filter: SearchFilter) => {
    if (ids.length === 0) return new Set<string>();
    const params = createSqlParams();
    const { rows } = await db.query<{ id: string }>(
      `SELECT e.id FROM entries e WHERE ${visibleConditions(principal, ids, filter, params)}`,
      params.values,
    );
    return new Set(rows.map((row) => row.id));
  };
  /** The caller's chosen relevant entries that it may see and the filter passes, in its order, with their shares of the feedback. */
  const relevantEntries = async (
    principal: Principal,
    filter: SearchFilter,
    relevant: NonNullable<FeedbackOptions["relevant"]>,
  ) => {
    const seen = await visible(principal, relevant.ids, filter);
    const kept = relevant.ids
      .map((id, index) => ({ id, weight: relevant.weights[index] ?? 1 }))
      .filter((item, index) => seen.has(item.id) && relevant.ids.indexOf(item.id) === index);
    return { ids: kept.map((item) => item.id), shares: feedbackShares(kept.map((item) => item.weight)) };
  };
  /**
   * A page of `query`'s ranking with `run`: an any-word query ranks first the
   * entries holding its rarer words, and stops there when that page provably
   * is the full ranking's (bm25-pruning.ts); otherwise every match is ranked.
   */
  const rankPage = async <Row extends { score: number }>(
    runner: (statement: string, params: SqlParams) => Promise<Row[]>,
    principal: Principal,
    query: FullTextQuery,
    filter: SearchFilter,
    page: { limit: number; offset: number },
    options: FullTextStatementOptions,
    counted: { terms: ReadonlyMap<string, number>; frequencies: ReadonlyMap<string, number> } | undefined,
  ): Promise<Row[]> => {
    const { collection } = options;
    const plan =
      counted !== undefined &&
      collection !== undefined &&
      query.mode === "any" &&
      options.within === undefined &&
      options.weighted === undefined
        ? planPruning(counted.terms, counted.frequencies, collection.documents, ranking.bm25, ranking.candidates)
        : undefined;
    if (plan !== undefined) {
      const params = createSqlParams();
      const rows = await runner(
        fullTextStatement(principal, query, filter, page, { ...options, candidates: plan.candidates }, params),
        params,
      );
      const holds = prunedPageHolds(
        rows.map((row) => Number(row.score)),
        page.limit,
        plan.ceiling,
      );
      prunedRankings.inc({ outcome: holds ? "held" : "ranked_all" });
      if (holds) return rows;
    }
    const params = createSqlParams();
    return runner(fullTextStatement(principal, query, filter, page, options, params), params);
  };
  const firstPass = (
    principal: Principal,
    query: FullTextQuery,
    filter: SearchFilter,
    limit: number,
    options: FullTextStatementOptions,
    counted: { terms: ReadonlyMap<string, number>; frequencies: ReadonlyMap<string, number> },
  ) =>
    rankPage(
      ranked,
      principal,
      query,
      filter,
      { limit, offset: 0 },
      { ...options, within: undefined, highlight: false, rankOnly: true },
      counted,
    );
  /**
   * The page from the tenant's own index, when it has one and the search is
   * one the index answers: whole words (not a prefix), now, over searchable
   * entries, not within given ids. Undefined: rank in SQL (also when too
   * few of the index's best match every word, see indexedPageHolds). An index dropped since the
   * list was read (a rebuild by another replica) reloads the list and falls
   * back to SQL.
   */
  const indexedPage = async (
    principal: Principal,
    query: FullTextQuery,
    filter: SearchFilter,
    page: { limit: number; offset: number },
    options: { highlight: boolean; rankOnly: boolean },
  ): Promise<FullTextRow[] | undefined> => {
    const index = indexes.indexOf(principal.tenant);
    if (index === undefined || query.mode === "prefix" || filter.asOf !== undefined || filter.includeQuarantined)
      return undefined;
    const terms = await frequencySource.queryTerms(query);
    if (terms.size === 0) return [];
    // Few entries hold every word of a long question, so the index's best would rarely fill its page: SQL, straight.
    if (query.mode !== "any" && terms.size > maxIndexedEveryWordTerms) return undefined;
    const params = createSqlParams();
    try {
      // The index's order, whatever the planner would guess: for a few thousand entries it prefers sorting a
      // sequential scan, which scores every entry through the index's operator (~0.1 ms each) instead of reading the best.
      const rows = await db.transaction(async (tx) => {
        await tx.query("SET LOCAL enable_seqscan = off");
        await tx.query("SET LOCAL enable_sort = off");
        const runner = options.rankOnly ? rankedBy(tx) : listedBy(tx);
        return runner(
          indexedFullTextStatement(principal, index, queryTokens(terms), query, filter, page, options, params),
          params,
        );
      });
      if (!indexedPageHolds(query.mode, rows.length, page)) {
        indexedRankings.inc({ outcome: "ranked_in_sql" });
        return undefined;
      }
      indexedRankings.inc({ outcome: "ranked" });
      return rows;
    } catch (error) {
      await indexes.reload();
      if (indexes.indexOf(principal.tenant) === index) throw error;
      indexedRankings.inc({ outcome: "fell_back" });
      return undefined;
    }
  };
  return {
    async fullText(principal, query, filter, page, highlight, idsOnly = false, within = undefined) {
      const indexed =
        within === undefined
          ? await indexedPage(principal, query, filter, page, { highlight, rankOnly: idsOnly })
          : undefined;
      if (indexed !== undefined) return indexed;
      const collection = await collectionOf(principal, filter);
      const counted = countsAside(query, filter) ? await queryFrequencies(principal, query, collection) : undefined;
      const options = {
        highlight,
        bm25: ranking.bm25,
        collection,
        rankOnly: idsOnly,
        frequencies: counted?.frequencies,
        within,
      };
      return rankPage(run(idsOnly), principal, query, filter, page, options, counted);
    },

    async fullTextWithFeedback(
      principal,
      query,
      filter,
      page,
      highlight,
      feedback,
      idsOnly = false,
      within = undefined,
    ) {
      const collection = await collectionOf(principal, filter);
      if (!countsAside(query, filter))
        return feedbackCountedInStatements(
          db,
          run,
          { bm25: ranking.bm25, collection },
          { principal, query, filter, page, highlight, feedback, idsOnly },
        );
      const view = visibilityKey(principal);
      const original = await queryFrequencies(principal, query, collection);
      const options = {
        highlight,
        bm25: ranking.bm25,
        collection,
        rankOnly: idsOnly,
        frequencies: original.frequencies,
        within,
      };
      const depth = page.offset + page.limit;
      const chosen =
        feedback.relevant === undefined ? undefined : await relevantEntries(principal, filter, feedback.relevant);
      // First pass (unless the caller chose the entries): the best entries by the query alone, ids and scores only; as
      // deep as the page when it can be, so that its last score bounds the second pass's page (below).
      const firstRows =
        chosen === undefined
          ? await firstPass(
              principal,
              query,
              filter,
              depth <= maxBoundingDepth ? Math.max(feedback.documents, depth) : feedback.documents,
              options,
              original,
            )
          : [];
      const first = chosen ?? {
        ids: firstRows.slice(0, feedback.documents).map((row) => row.id),
        shares: feedbackShares(firstRows.slice(0, feedback.documents).map((row) => Number(row.score))),
      };
      const plain = async () => ({
        rows: await rankPage(run(idsOnly), principal, query, filter, page, options, original),
        feedback: { documents: 0, terms: [] },
      });
      if (first.ids.length === 0)
        return chosen === undefined ? { rows: [], feedback: { documents: 0, terms: [] } } : plain();
      const candidateParams = createSqlParams();
      const { rows: candidateRows } = await db.query<{ lexeme: string; feedback_weight: number; holders: number }>(
        feedbackCandidatesStatement(principal, filter, first, candidateParams),
        candidateParams.values,
      );
      const candidates = candidateRows.map((row) => ({
        lexeme: row.lexeme,
        feedbackWeight: Number(row.feedback_weight),
        holders: Number(row.holders),
      }));
      // Only the candidates that could still enter the expansion are counted (candidatesToCount), in one statement.
      const documents = collection?.documents ?? 0;
      const kept = capped(
        new Map([
          ...original.frequencies,
          ...frequencySource.kept(
            principal,
            view,
            candidates.map((candidate) => candidate.lexeme),
          ),
        ]),
        collection,
      );
      const toCount = candidatesToCount(candidates, kept, documents, feedback);
      const frequencies = capped(
        await frequencySource.frequencies(principal, view, [...kept.keys(), ...toCount], kept),
        collection,
      );
      const byLexeme = new Map(candidates.map((candidate) => [candidate.lexeme, candidate]));
      const lexemes = new Set([
        ...original.terms.keys(),
        ...candidates.filter((candidate) => frequencies.has(candidate.lexeme)).map((candidate) => candidate.lexeme),
      ]);
      const terms = [...lexemes].map((lexeme) => ({
        lexeme,
        feedbackWeight: byLexeme.get(lexeme)?.feedbackWeight ?? 0,
        repeats: original.terms.get(lexeme) ?? 0,
        frequency: frequencies.get(lexeme) ?? 0,
      }));
      const expanded = selectExpansionTerms(terms, documents, feedback);
      if (expanded.expansion.length === 0 || expanded.query.length === 0) return plain();
      // Second pass: the page ranked by the interpolated query, every word's frequency already known; in any-word mode
      // an entry holding only an expansion term matches too.
      const params = createSqlParams();
      // An entry the first pass ranked scores at least queryWeight × its first score in the second pass (every original
      // word keeps at least that share of its weight, with the same df), so the first pass's score at the page's depth
      // times queryWeight is at most the second page's last score; expansion words whose bounds sum below it need not widen the match.
      // Ranking only given entries, every expansion word widens the match: there are few of them to score.
      const floor =
        chosen === undefined && within === undefined && firstRows.length >= depth && depth <= maxBoundingDepth
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
        fullTextStatement(principal, query, filter, page, { ...options, weighted, frequencies }, params),
        params,
      );
      return { rows, feedback: { documents: first.ids.length, terms: expanded.expansion } };
    },

    async isEmptyQuery(query) {
      const params = createSqlParams();
      const { rows } = await db.query<{ nodes: number }>(
        `SELECT numnode(${tsquerySql(query, params)}) AS nodes`,
        params.values,
      );
      return (rows[0]?.nodes ?? 0) === 0;
    },

    async listings(principal, ids, filter) {
      if (ids.length === 0) return [];
      const params = createSqlParams();
      const { rows } = await db.query<ListingRow>(
        `SELECT ${listingColumns(live)} FROM entries e WHERE ${visibleConditions(principal, ids, filter, params)}`,
        params.values,
      );
      return rows.map(toListing);
    },

    async visibleIds(principal, ids, filter) {
      return visible(principal, ids, filter);
    },

    async texts(principal, items) {
      if (items.length === 0) return new Map();
      const params = createSqlParams();
      // left() counts code points, which are never fewer than the UTF-16 units asked for, so the slice covers them.
      const { rows } = await db.query<{ id: string; text: string }>(
        `SELECT e.id, left(e.text, w.chars) AS text
         FROM unnest(${params.add(items.map((item) => item.id))}::uuid[], ${params.add(items.map((item) => item.chars))}::integer[]) AS w (id, chars)
         JOIN entries e ON e.id = w.id
         WHERE ${accessPredicate(principal, "e", params)} AND ${trustFilter("e", false)}`,
        params.values,
      );
      return new Map(rows.map((row) => [row.id, row.text]));
    },

    async grepCandidates(principal, filter, literal, cursor, limit) {
      const params = createSqlParams();
      const conditions = [
        accessPredicate(principal, "e", params),
        ...searchFilterConditions(principal, filter, "e", params),
      ];
      if (literal !== undefined) conditions.push(`strpos(e.text, ${params.add(literal)}) > 0`);
      if (cursor !== undefined)
        conditions.push(
          `(e.created_at, e.id) < (${params.add(cursor.createdAt.toISOString())}::timestamptz, ${params.add(cursor.id)}::uuid)`,
        );
      const { rows } = await db.query<{
        id: string;
        thread_id: string;
        created_at: Date;
        text_length: number;
        trust_state: TrustState;
      }>(
        `SELECT e.id, e.thread_id, e.created_at, e.text_length, e.trust_state FROM ${entrySource(principal, filter, params)} e
         WHERE ${conditions.join(" AND ")}
         ORDER BY e.created_at DESC, e.id DESC
         LIMIT ${params.add(limit)}`,
        params.values,
      );
      return rows.map((row) => ({
        id: row.id,
        threadId: row.thread_id,
        createdAt: row.created_at,
        textLength: Number(row.text_length),
        trustState: row.trust_state,
      }));
    },

    async grepTexts(principal, filter, ids) {
      if (ids.length === 0) return new Map();
      const params = createSqlParams();
      const conditions = [
        accessPredicate(principal, "e", params),
        ...searchFilterConditions(principal, filter, "e", params),
        `e.id = ANY(${params.add(ids)}::uuid[])`,
      ];
      const { rows } = await db.query<{ id: string; text: string }>(
        `SELECT e.id, e.text FROM ${entrySource(principal, filter, params)} e WHERE ${conditions.join(" AND ")}`,
        params.values,
      );
      return new Map(rows.map((row) => [row.id, row.text]));
    },

    async setting(key) {
      const { rows } = await db.query<{ value: string }>("SELECT value FROM search_settings WHERE key = $1", [key]);
      return rows[0]?.value;
    },

    async embeddedByOtherModels(principal, model, dimension) {
      const params = createSqlParams();
      const visible = accessPredicate(principal, "e", params);
      const dimensionOf = db.vectorType === "pgvector" ? "vector_dims(c.embedding)" : "cardinality(c.embedding)";
      const space = `c.embedding_model = ${params.add(model)} AND ${dimensionOf} = ${params.add(dimension)}::integer`;
      const { rows } = await db.query<{ this_space: boolean; other_space: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM chunks c JOIN entries e ON e.id = c.entry_id WHERE ${visible} AND ${space}) AS this_space,
                EXISTS (SELECT 1 FROM chunks c JOIN entries e ON e.id = c.entry_id WHERE ${visible} AND NOT (${space})) AS other_space`,
        params.values,
      );
      return rows[0]?.this_space === false && rows[0]?.other_space === true;
    },

    async builtinLanguages() {
      const { rows } = await db.query<{ name: string }>(
        "SELECT cfgname AS name FROM pg_ts_config WHERE cfgnamespace = 'pg_catalog'::regnamespace ORDER BY cfgname",
      );
      return rows.map((row) => row.name);
    },
  };
}
