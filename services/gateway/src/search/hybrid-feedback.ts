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
 * How hybrid feedback works: the entries taken as relevant are the full-text
 * leg's best `relevantDocuments` among its first `corroborationPool` that the
 * semantic leg also ranks in its best `corroboratingDepth` (weighted by their
 * BM25 scores, as a first pass weighs them); when fewer than
 * `minimumCorroborated` are, or the semantic leg found nothing, the leg's own
 * best `relevantDocuments`. The fused ranking's best `rescoredCandidates`
 * (the store's ranking depth; both legs' candidates at the default depths)
 * are re-scored by the expanded query. Chosen on Cranfield, checked on CISI
 * (docs/retrieval.md).
 */
export const hybridFeedback = Object.freeze({
  relevantDocuments: 10,
  corroborationPool: 15,
  corroboratingDepth: 60,
  minimumCorroborated: 3,
  rescoredCandidates: 500,
});

type RankedId = { id: string; score: number };

/**
 * The full-text leg's entries feedback takes as relevant: those of its best
 * that the semantic leg corroborates (hybridFeedback). An entry that only
 * shares the query's words, with a meaning the other leg does not find near
 * it, would pull the expansion away from the query.
 */
export function feedbackEntries(ftsList: readonly RankedId[], semanticList: readonly RankedId[]): RankedId[] {
  const corroborating = new Set(semanticList.slice(0, hybridFeedback.corroboratingDepth).map((item) => item.id));
  const corroborated = ftsList
    .slice(0, hybridFeedback.corroborationPool)
    .filter((item) => corroborating.has(item.id))
    .slice(0, hybridFeedback.relevantDocuments);
  return corroborated.length >= hybridFeedback.minimumCorroborated
    ? corroborated
    : ftsList.slice(0, hybridFeedback.relevantDocuments);
}

/**
 * The full-text leg re-ranked with pseudo-relevance feedback (RM3, as
 * `fts_search_context`'s feedback): the leg's own ranking is the first pass,
 * its best entries that the semantic leg corroborates (feedbackEntries)
 * expand the query in the store under the caller's statistics, and the
 * expanded query scores the fused candidates alone instead of every entry
 * holding any added word.
 */
export async function rescoreWithFeedback(
  search: SearchClient,
  principal: Principal,
  request: { query: string; ftsMode: FullTextModeName; filter: SearchFilterArgs },
  legs: { fts: readonly RankedId[]; semantic: readonly RankedId[] },
  fused: readonly FusedItem[],
) {
  const relevant = feedbackEntries(legs.fts, legs.semantic);
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
