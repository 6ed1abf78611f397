/**
 * Document frequencies for BM25 now, read outside the ranking statement so
 * that a caller view's recent counts are reused (see bm25-statistics.ts)
 * and a search that ranks twice (pseudo-relevance feedback) counts each
 * word once. Every count is over the searchable entries the caller may see
 * (invariant I-7), as frequenciesCte counts them inside a statement.
 */
import { createSqlParams, type SqlDatabase } from "../db/sql-database.js";
import type { Principal } from "../model/principal.js";
import { countFrequenciesStatement, queryTermsStatement, type FullTextQuery } from "./bm25-sql.js";
import type { DocumentFrequencyCache } from "./bm25-statistics.js";

export interface FrequencySource {
  /** The lexemes of the query's positive part with how often it repeats each, parsed as the ranking statement parses it. */
  queryTerms(query: FullTextQuery): Promise<Map<string, number>>;
  /**
   * The kept frequencies of `lexemes` for `principal`'s view `view` (those
   * past their lifetime included, which are counted again in the background
   * for later queries); the others are absent.
   */
  kept(principal: Principal, view: string, lexemes: readonly string[]): Map<string, number>;
  /**
   * The document frequency of each of `lexemes` over what `principal` may
   * see now: those in `known`, then those kept for its view, and the rest
   * counted in one statement (and kept).
   */
  frequencies(
    principal: Principal,
    view: string,
    lexemes: Iterable<string>,
    known?: ReadonlyMap<string, number>,
  ): Promise<Map<string, number>>;
}

/** Frequencies read from `db`, kept in `cache`. */
export function createFrequencySource(db: SqlDatabase, cache: DocumentFrequencyCache): FrequencySource {
  return {
    async queryTerms(query) {
      const params = createSqlParams();
      const { rows } = await db.query<{ lexeme: string; repeats: number }>(
        queryTermsStatement(query, params),
        params.values,
      );
      return new Map(rows.map((row) => [row.lexeme, Number(row.repeats)]));
    },

    kept,

    async frequencies(principal, view, lexemes, known = new Map()) {
      const wanted = [...new Set(lexemes)];
      const found = new Map<string, number>();
      for (const lexeme of wanted) {
        const frequency = known.get(lexeme);
        if (frequency !== undefined) found.set(lexeme, frequency);
      }
      for (const [lexeme, frequency] of kept(
        principal,
        view,
        wanted.filter((lexeme) => !found.has(lexeme)),
      ))
        found.set(lexeme, frequency);
      const missing = wanted.filter((lexeme) => !found.has(lexeme));
      if (missing.length === 0) return found;
      const counted = await count(principal, missing);
      cache.keep(view, counted);
      for (const [lexeme, frequency] of counted) found.set(lexeme, frequency);
      return found;
    },
  };

  function kept(principal: Principal, view: string, lexemes: readonly string[]): Map<string, number> {
    const { found, refresh } = cache.known(view, lexemes);
    // Kept but past their lifetime: they answer this query, and are counted again beside it for the next ones.
    // A failed recount leaves them as they were, to be dropped once too old.
    if (refresh.length > 0) count(principal, refresh).then((counted) => cache.keep(view, counted), ignore);
    return found;
  }

  /** Counts `lexemes`' document frequencies over what `principal` may see now (0 for a lexeme no entry holds). */
  async function count(principal: Principal, lexemes: readonly string[]): Promise<Map<string, number>> {
    const params = createSqlParams();
    const { rows } = await db.query<{ lexeme: string; frequency: number }>(
      countFrequenciesStatement(principal, lexemes, params),
      params.values,
    );
    const counted = new Map<string, number>(lexemes.map((lexeme) => [lexeme, 0]));
    for (const row of rows) counted.set(row.lexeme, Number(row.frequency));
    return counted;
  }
}

const ignore = () => undefined;
