/**
 * Pages of a full-text ranking: read as listed rows or as ids and scores, an
 * any-word ranking pruned to its rarer words' entries when that provably
 * holds, and a whole-word search ranked inside the tenant's own BM25 index.
 */
import { counter } from "@context-hub/common";
import { pageFloor, planPruning, planSeeding, prunedPageHolds, qualifyingTermSets } from "./bm25-pruning.js";
import { queryTokens, type TenantBm25Indexes } from "./bm25-indexes.js";
import { indexedFullTextStatement, indexedPageHolds } from "./bm25-index-statement.js";
import { createSqlParams, type SqlDatabase, type SqlExecutor, type SqlParams } from "../db/sql-database.js";
import type { Principal } from "../model/principal.js";
import type { Bm25Parameters } from "./search-config.js";
import type { SearchFilter } from "../model/search-filter.js";
import type { FrequencySource } from "./bm25-frequencies.js";
import type { FullTextQuery } from "./bm25-sql.js";
import { fullTextStatement, type CandidateEntries, type FullTextStatementOptions } from "./full-text-statement.js";
import type { FullTextRow } from "./search-ports.js";
import { toListing, type ListingRow } from "./search-reads.js";

const indexedRankings = counter(
  "contexthub_store_indexed_rankings_total",
  "Full-text rankings (whole words, now) served by the caller's tenant's own BM25 index, by outcome: ranked; ranked_in_sql (a search matching more than any word found too few matches among the index's best); fell_back (the index was gone; ranked in SQL).",
  ["outcome"],
);

const prunedRankings = counter(
  "contexthub_store_pruned_rankings_total",
  "Any-word full-text rankings that scored some entries first, by outcome: held (the rarer words' entries gave the full ranking's page), seeded (the entries holding every word set a floor, and only those that could pass it were ranked) or ranked_all (every match was then scored).",
  ["outcome"],
);

/**
 * Most distinct words an every-word, phrase or web-search query may have for a tenant's index to rank it; a longer
 * one ranks in SQL (on Cranfield's questions, about nine words after stop words, no entry holds them all).
 */
const maxIndexedEveryWordTerms = 4;

/** Runs a ranking statement on `executor` and reads its listed rows (entry, score, headline). */
export const listedBy =
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

/**
 * Runs a ranking statement on `executor` and reads ids and scores only: the page is cut inside the statement under
 * the access predicate, and no listing column is read.
 */
export const rankedBy =
  (executor: SqlExecutor) =>
  async (statement: string, params: SqlParams): Promise<FullTextRow[]> => {
    const { rows } = await executor.query<{ id: string; score: number }>(statement, params.values);
    return rows.map((row) => ({ id: row.id, entry: undefined, score: Number(row.score), headline: undefined }));
  };

/** What a pruned ranking scores with: BM25's parameters and how many entries it scores first (0: every match). */
export interface PruningSettings {
  bm25: Bm25Parameters;
  candidates: number;
}

/** A query's terms and their document frequencies, when read beside the ranking statement. */
export interface CountedTerms {
  terms: ReadonlyMap<string, number>;
  frequencies: ReadonlyMap<string, number>;
}

/** Whether two sorted word lists are the same words (a lexeme may hold a space, so joining them would not tell). */
const sameWords = (left: readonly string[], right: readonly string[]) =>
  left.length === right.length && left.every((word, index) => word === right[index]);

/**
 * Ranks a page of `query` with `runner`. An any-word query whose words
 * match many entries ranks first the entries holding every word: when that
 * page is full, its last score is a floor, and the entries holding a set of
 * words whose ceilings can pass it are ranked (often the seed's own
 * entries: then its page is the answer). Otherwise it ranks the entries
 * holding its rarer words, and stops there when that page provably is the
 * full ranking's (bm25-pruning.ts); failing both, every match is ranked.
 */
export function createPageRanker(settings: PruningSettings) {
  return async <Row extends { id: string; score: number }>(
    runner: (statement: string, params: SqlParams) => Promise<Row[]>,
    principal: Principal,
    query: FullTextQuery,
    filter: SearchFilter,
    page: { limit: number; offset: number },
    options: FullTextStatementOptions,
    counted: CountedTerms | undefined,
  ): Promise<Row[]> => {
    const { collection } = options;
    const rank = (candidates?: CandidateEntries, cut = page) => {
      const params = createSqlParams();
      return runner(fullTextStatement(principal, query, filter, cut, { ...options, candidates }, params), params);
    };
    const scores = (rows: readonly Row[]) => rows.map((row) => Number(row.score));
    if (
      counted === undefined ||
      collection === undefined ||
      query.mode !== "any" ||
      options.within !== undefined ||
      options.weighted !== undefined
    )
      return rank();
    const { terms, frequencies } = counted;
    const { documents } = collection;
    const seeding = planSeeding(terms, frequencies, documents, settings.bm25, settings.candidates);
    if (seeding !== undefined) {
      // The seed's best down to the page's end: the floor, and all of the seed that can be on the page.
      const depth = page.offset + page.limit;
      const seeded = await rank({ holding: [seeding.seed] }, { limit: depth, offset: 0 });
      const floor = pageFloor(scores(seeded), depth);
      const sets = floor === undefined ? undefined : qualifyingTermSets(seeding.ceilings, floor);
      if (sets !== undefined) {
        prunedRankings.inc({ outcome: "seeded" });
        // Only entries holding every word can reach the floor: they are the seed's candidates, ranked already.
        if (sets.length === 1 && sameWords(sets[0]!, seeding.seed)) return seeded.slice(page.offset);
        // The others that can reach it, with the seed's best (the rest of the seed ranks below them).
        return rank({ holding: sets, notHoldingAll: seeding.seed, ids: seeded.map((row) => row.id) });
      }
    }
    const plan = planPruning(terms, frequencies, documents, settings.bm25, settings.candidates);
    if (plan !== undefined) {
      const rows = await rank({ holding: plan.candidates.map((lexeme) => [lexeme]) });
      if (prunedPageHolds(scores(rows), page.limit, plan.ceiling)) {
        prunedRankings.inc({ outcome: "held" });
        return rows;
      }
    }
    if (plan !== undefined || seeding !== undefined) prunedRankings.inc({ outcome: "ranked_all" });
    return rank();
  };
}

/** What ranking inside a tenant's own BM25 index reads: the database, the tenants' indexes, the query's terms. */
export interface IndexedPageSources {
  db: SqlDatabase;
  indexes: Pick<TenantBm25Indexes, "indexOf" | "reload">;
  frequencySource: Pick<FrequencySource, "queryTerms">;
}

/**
 * The page from the tenant's own index, when it has one and the search is
 * one the index answers: whole words (not a prefix), now, over searchable
 * entries, not within given ids. Undefined: rank in SQL (also when too
 * few of the index's best match every word, see indexedPageHolds). An index dropped since the
 * list was read (a rebuild by another replica) reloads the list and falls
 * back to SQL. `parsed`: the query's terms when the caller already has them
 * (`queryTerms`), so they are not parsed again.
 */
export function createIndexedPages({ db, indexes, frequencySource }: IndexedPageSources) {
  return async (
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
}

/**
 * A feedback search's first pass with `rankPage`: the best `limit` entries by the query alone, as ids and scores
 * (`ranked`), over every entry and without highlights.
 */
export function createFirstPass(rankPage: ReturnType<typeof createPageRanker>, ranked: ReturnType<typeof rankedBy>) {
  return (
    principal: Principal,
    query: FullTextQuery,
    filter: SearchFilter,
    limit: number,
    options: FullTextStatementOptions,
    counted: CountedTerms,
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
}
