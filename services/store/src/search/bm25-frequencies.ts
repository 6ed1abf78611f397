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

    async frequencies(principal, view, lexemes, known = new Map()) {
      const wanted = [...new Set(lexemes)];
      const found = new Map<string, number>();
      for (const lexeme of wanted) {
        const frequency = known.get(lexeme);
        if (frequency !== undefined) found.set(lexeme, frequency);
      }
      for (const [lexeme, frequency] of cache.known(
        view,
        wanted.filter((lexeme) => !found.has(lexeme)),
      ))
        found.set(lexeme, frequency);
      const missing = wanted.filter((lexeme) => !found.has(lexeme));
      if (missing.length === 0) return found;
      const params = createSqlParams();
      const { rows } = await db.query<{ lexeme: string; frequency: number }>(
        countFrequenciesStatement(principal, missing, params),
        params.values,
      );
      const counted = new Map<string, number>(missing.map((lexeme) => [lexeme, 0]));
      for (const row of rows) counted.set(row.lexeme, Number(row.frequency));
      cache.keep(view, counted);
      for (const [lexeme, frequency] of counted) found.set(lexeme, frequency);
      return found;
    },
  };
}
