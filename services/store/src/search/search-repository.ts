/**
 * The search repository over a migrated database: full-text ranking
 * (full-text-ranker.ts), with feedback (full-text-feedback.ts), and the other
 * reads (search-reads.ts), behind the port of search-ports.ts.
 */
import type { SqlDatabase } from "../db/sql-database.js";
import type { TenantBm25Indexes } from "./bm25-indexes.js";
import { createFeedbackRanking } from "./full-text-feedback.js";
import { createFullTextRanker, type FullTextRanking } from "./full-text-ranker.js";
import { defaultSearchConfig } from "./search-config.js";
import type { SearchRepository } from "./search-ports.js";
import { createSearchReads } from "./search-reads.js";

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
    termsOneByOne: defaultSearchConfig.bm25TermsOneByOne,
    statisticsSample: defaultSearchConfig.statisticsSample,
  },
  indexes: Pick<TenantBm25Indexes, "indexOf" | "reload"> = { indexOf: () => undefined, reload: async () => {} },
): SearchRepository {
  const ranker = createFullTextRanker(db, ranking, indexes);
  return {
    fullText: ranker.fullText,
    fullTextWithFeedback: createFeedbackRanking(db, ranker),
    ...createSearchReads(db),
  };
}
