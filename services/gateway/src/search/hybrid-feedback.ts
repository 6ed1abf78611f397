/** Pseudo-relevance feedback on a hybrid search's full-text leg: its default and the re-scoring of the fused candidates. */
import type { SearchFilterArgs } from "../clients/search-filter.js";
import type { FullTextModeName, SearchClient } from "../clients/search-client.js";
import type { Principal } from "../principal.js";
import type { FusedItem } from "./rrf.js";

/**
 * Whether the full-text leg ranks with pseudo-relevance feedback unless told
 * otherwise (chosen on Cranfield, checked on CISI; docs/retrieval.md).
 */
export const defaultFtsFeedback = true;

/**
 * How hybrid feedback works: the full-text leg's best `relevantDocuments`
 * entries are taken as relevant (weighted by their scores, as a first pass
 * weighs them), and the fused ranking's best `rescoredCandidates` (the
 * store's ranking depth; both legs' candidates at the default depths) are
 * re-scored by the expanded query.
 */
export const hybridFeedback = Object.freeze({ relevantDocuments: 10, rescoredCandidates: 500 });

/**
 * The full-text leg re-ranked with pseudo-relevance feedback (RM3, as
 * `fts_search_context`'s feedback): the leg's own ranking is the first pass,
 * its best entries expand the query in the store under the caller's
 * statistics, and the expanded query scores the fused candidates alone
 * instead of every entry holding any added word. Chosen on Cranfield, checked
 * on CISI (docs/retrieval.md): taking the relevant entries from the fused
 * ranking instead measured worse there.
 */
export async function rescoreWithFeedback(
  search: SearchClient,
  principal: Principal,
  request: { query: string; ftsMode: FullTextModeName; filter: SearchFilterArgs },
  ftsList: readonly { id: string; score: number }[],
  fused: readonly FusedItem[],
) {
  const relevant = ftsList.slice(0, hybridFeedback.relevantDocuments);
  const within = fused.slice(0, hybridFeedback.rescoredCandidates).map((item) => item.id);
  return search.fullText(principal, {
    query: request.query,
    mode: request.ftsMode,
    filter: request.filter,
    limit: within.length,
    offset: 0,
    idsOnly: true,
    withinIds: within,
    feedback: {
      documents: relevant.length,
      relevantIds: relevant.map((item) => item.id),
      // BM25 scores of matching entries are positive; the floor keeps a degenerate zero from being refused.
      relevantWeights: relevant.map((item) => Math.max(item.score, Number.MIN_VALUE)),
    },
  });
}
