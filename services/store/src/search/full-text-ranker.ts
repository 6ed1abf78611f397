/**
 * Full-text ranking by BM25: the caller's collection statistics and document
 * frequencies (kept per visibility), an any-word ranking pruned to its rarer
 * words' entries when that provably holds, a whole-word search ranked inside
 * the tenant's own BM25 index when it has one. Feedback ranking
 * (full-text-feedback.ts) runs on the same parts.
 */
import { accessPredicate } from "../filters/access-predicate.js";
import {
  createCollectionStatisticsCache,
  createDocumentFrequencyCache,
  type CollectionStatistics,
} from "./bm25-statistics.js";
import { counter } from "@context-hub/common";
import { createFrequencySource } from "./bm25-frequencies.js";
import { createSampledFrequencies } from "./sampled-frequencies.js";
import { estimateCollection, type ViewSampleSettings } from "./view-sample.js";
import { planPruning, prunedPageHolds } from "./bm25-pruning.js";
import { queryTokens, type TenantBm25Indexes } from "./bm25-indexes.js";
import { indexedFullTextStatement, indexedPageHolds } from "./bm25-index-statement.js";
import { createSqlParams, type SqlDatabase, type SqlExecutor, type SqlParams } from "../db/sql-database.js";
import type { Principal } from "../model/principal.js";
import type { Bm25Parameters } from "./search-config.js";
import type { SearchFilter } from "../model/search-filter.js";
import { trustFilter } from "../filters/trust-filter.js";
import { feedbackShares, type FeedbackOptions } from "./bm25-feedback.js";
import type { FullTextQuery } from "./bm25-sql.js";
import { fullTextStatement, type FullTextStatementOptions } from "./full-text-statement.js";
import type { FullTextRow, SearchRepository } from "./search-ports.js";
import { toListing, visibleAmong, type ListingRow } from "./search-reads.js";

/**
 * N and the average length over the searchable entries `principal` may see:
 * those a default search may return to it (current, neither quarantined nor
 * rejected). Entries it may not see count nowhere, so they cannot move its
 * scores.
 */
async function countCollection(
  db: SqlDatabase,
  principal: Principal,
  sample: ViewSampleSettings,
): Promise<CollectionStatistics> {
  // A large view is estimated from a sample: counting it reads every entry of the tenant (≈ 0.4 s at 100,000 on
  // PGlite, holding its one thread), and a percent or two of N or of the average length hardly moves a score.
  const estimate = await estimateCollection(db, principal, sample);
  if (estimate !== undefined) return estimate;
  const params = createSqlParams();
  const { rows } = await db.query<{ documents: string; average_length: number | null }>(
    `SELECT count(*) AS documents, avg(s.search_length)::float8 AS average_length FROM entries s WHERE ${accessPredicate(principal, "s", params)} AND ${trustFilter("s", false)}`,
    params.values,
  );
  return { documents: Number(rows[0]?.documents ?? 0), averageLength: Number(rows[0]?.average_length ?? 0) };
}

/** What decides which entries a principal sees: its statistics are kept under this key, never shared with another view. */
export function visibilityKey(principal: Principal): string {
  return JSON.stringify([
    principal.tenant,
    principal.subject,
    [...principal.groups].sort(),
    [...principal.scopes].sort(),
  ]);
}

/** Runs a ranking statement: the listed rows, or ids and scores only. */
export type RunStatement = (idsOnly: boolean) => (statement: string, params: SqlParams) => Promise<FullTextRow[]>;

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

/** How the repository ranks full text. */
export interface FullTextRanking {
  bm25: Bm25Parameters;
  /** How long a caller's N, average length and document frequencies are reused before they are counted again; 0 counts them for every query. */
  statisticsTtlMs: number;
  /** Most entries a pruned any-word ranking scores first (bm25-pruning.ts); 0 ranks every match. */
  candidates: number;
  /** When a large view's N, average length and feedback's frequencies are estimated from a sample of it (view-sample.ts). */
  statisticsSample: ViewSampleSettings;
}

/** The parts of full-text ranking over `db`, and `fullText` (SearchRepository.fullText) built on them. */
export function createFullTextRanker(
  db: SqlDatabase,
  ranking: FullTextRanking,
  indexes: Pick<TenantBm25Indexes, "indexOf" | "reload">,
) {
  const statistics = createCollectionStatisticsCache(ranking.statisticsTtlMs);
  const collectionOf = async (principal: Principal, filter: SearchFilter) =>
    filter.asOf === undefined
      ? await statistics.get(visibilityKey(principal), () => countCollection(db, principal, ranking.statisticsSample))
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
  const sampledFrequencies = createSampledFrequencies(
    db,
    createDocumentFrequencyCache(ranking.statisticsTtlMs),
    ranking.statisticsSample,
    ranking.statisticsTtlMs,
  );
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
    const view = visibilityKey(principal);
    const documents = collection?.documents ?? 0;
    // Over a large view the query's words are estimated from the view's sample as feedback's are (rare ones counted).
    return {
      terms,
      frequencies: capped(
        sampledFrequencies.applies(documents)
          ? await sampledFrequencies.words(principal, view, documents, [...terms.keys()])
          : await frequencySource.frequencies(principal, view, terms.keys()),
        collection,
      ),
    };
  };

  /** The caller's chosen relevant entries that it may see and the filter passes, in its order, with their shares of the feedback. */
  const relevantEntries = async (
    principal: Principal,
    filter: SearchFilter,
    relevant: NonNullable<FeedbackOptions["relevant"]>,
  ) => {
    const seen = await visibleAmong(db, principal, relevant.ids, filter);
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
   * back to SQL. `parsed`: the query's terms when the caller already has them
   * (`queryTerms`), so they are not parsed again.
   */
  const indexedPage = async (
    principal: Principal,
    query: FullTextQuery,
    filter: SearchFilter,
    page: { limit: number; offset: number },
    options: { highlight: boolean; rankOnly: boolean },
    parsed?: ReadonlyMap<string, number>,
  ): Promise<FullTextRow[] | undefined> => {
    const index = indexes.indexOf(principal.tenant);
    if (index === undefined || query.mode === "prefix" || filter.asOf !== undefined || filter.includeQuarantined)
      return undefined;
    const terms = parsed ?? (await frequencySource.queryTerms(query));
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
  const fullText: SearchRepository["fullText"] = async (
    principal,
    query,
    filter,
    page,
    highlight,
    idsOnly = false,
    within = undefined,
  ) => {
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
  };
  return {
    ranking,
    run,
    collectionOf,
    countsAside,
    capped,
    queryFrequencies,
    frequencySource,
    sampledFrequencies,
    rankPage,
    firstPass,
    indexedPage,
    relevantEntries,
    fullText,
  };
}

/** What feedback ranking (full-text-feedback.ts) reuses of a full-text ranker. */
export type FullTextRanker = ReturnType<typeof createFullTextRanker>;
