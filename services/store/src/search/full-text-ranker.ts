/**
 * Full-text ranking by BM25: the caller's collection statistics and document
 * frequencies (kept per visibility, ranking-statistics.ts), an any-word
 * ranking pruned to its rarer words' entries when that provably holds, a
 * whole-word search ranked inside the tenant's own BM25 index when it has one
 * (full-text-pages.ts). Feedback ranking (full-text-feedback.ts) runs on the
 * same parts.
 */
import type { TenantBm25Indexes } from "./bm25-indexes.js";
import type { SqlDatabase, SqlParams } from "../db/sql-database.js";
import type { Principal } from "../model/principal.js";
import type { Bm25Parameters } from "./search-config.js";
import type { SearchFilter } from "../model/search-filter.js";
import { feedbackShares, type FeedbackOptions } from "./bm25-feedback.js";
import type { FullTextRow, SearchRepository } from "./search-ports.js";
import { visibleAmong } from "./search-reads.js";
import type { ViewSampleSettings } from "./view-sample.js";
import type { FullTextQuery } from "./bm25-sql.js";
import { createRankingStatistics } from "./ranking-statistics.js";
import { createFirstPass, createIndexedPages, createPageRanker, listedBy, rankedBy } from "./full-text-pages.js";

/** Runs a ranking statement: the listed rows, or ids and scores only. */
export type RunStatement = (idsOnly: boolean) => (statement: string, params: SqlParams) => Promise<FullTextRow[]>;

/** How the repository ranks full text. */
export interface FullTextRanking {
  bm25: Bm25Parameters;
  /** How long a caller's N, average length and document frequencies are reused before they are counted again; 0 counts them for every query. */
  statisticsTtlMs: number;
  /** Most entries a pruned any-word ranking scores first (bm25-pruning.ts); 0 ranks every match. */
  candidates: number;
  /** Most distinct terms a ranking statement scores one at a time (FullTextStatementOptions.termCount); 0: none. */
  termsOneByOne: number;
  /** When a large view's N, average length and feedback's frequencies are estimated from a sample of it (view-sample.ts). */
  statisticsSample: ViewSampleSettings;
}

/** The caller's chosen relevant entries that it may see and the filter passes, in its order, with their shares of the feedback. */
async function relevantEntries(
  db: SqlDatabase,
  principal: Principal,
  filter: SearchFilter,
  relevant: NonNullable<FeedbackOptions["relevant"]>,
) {
  const seen = await visibleAmong(db, principal, relevant.ids, filter);
  const kept = relevant.ids
    .map((id, index) => ({ id, weight: relevant.weights[index] ?? 1 }))
    .filter((item, index) => seen.has(item.id) && relevant.ids.indexOf(item.id) === index);
  return { ids: kept.map((item) => item.id), shares: feedbackShares(kept.map((item) => item.weight)) };
}

/** The parts of full-text ranking over `db`, and `fullText` (SearchRepository.fullText) built on them. */
export function createFullTextRanker(
  db: SqlDatabase,
  ranking: FullTextRanking,
  indexes: Pick<TenantBm25Indexes, "indexOf" | "reload">,
) {
  const { collectionOf, countsAside, capped, queryFrequencies, frequencySource, sampledFrequencies } =
    createRankingStatistics(db, ranking);
  const listed = listedBy(db);
  const ranked = rankedBy(db);
  const run = (idsOnly: boolean) => (idsOnly ? ranked : listed);
  const rankPage = createPageRanker(ranking);
  const firstPass = createFirstPass(rankPage, ranked);
  const indexedPage = createIndexedPages({ db, indexes, frequencySource });
  // A ranking statement's terms scored one at a time (FullTextStatementOptions.termCount) when they are few enough.
  const oneByOne = (count: number) => (count >= 1 && count <= ranking.termsOneByOne ? count : undefined);
  // The query's terms counted as the ranking statement counts them: as of an instant too, where they are not counted
  // aside otherwise, so a version ranked then scores to the last bit as the same text ranked now.
  const termCountOf = async (query: FullTextQuery, counted: ReadonlyMap<string, number> | undefined) =>
    query.mode === "prefix" ? undefined : oneByOne((counted ?? (await frequencySource.queryTerms(query))).size);
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
      termCount: await termCountOf(query, counted?.terms),
      within,
    };
    return rankPage(run(idsOnly), principal, query, filter, page, options, counted);
  };
  return {
    ranking,
    run,
    oneByOne,
    termCountOf,
    collectionOf,
    countsAside,
    capped,
    queryFrequencies,
    frequencySource,
    sampledFrequencies,
    rankPage,
    firstPass,
    indexedPage,
    relevantEntries: (principal: Principal, filter: SearchFilter, relevant: NonNullable<FeedbackOptions["relevant"]>) =>
      relevantEntries(db, principal, filter, relevant),
    fullText,
  };
}

/** What feedback ranking (full-text-feedback.ts) reuses of a full-text ranker. */
export type FullTextRanker = ReturnType<typeof createFullTextRanker>;
