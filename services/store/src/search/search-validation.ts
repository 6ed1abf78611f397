/** The checks every search shares: a ranking's page, a query vector, feedback knobs, the ids a ranking stays within, counts. */
import { invalidArgument } from "@context-hub/common";
import { isUuid } from "../model/ids.js";
import { feedbackLimits, type FeedbackOptions } from "./bm25-feedback.js";
import { searchLimits, type FeedbackRequest } from "./search-model.js";
import type { FullTextMode } from "./text-search.js";

/**
 * A page of a ranking: limit 1–500 (0 means 10); offset + limit at most the
 * ranking depth, since a ranking is only computed that deep.
 */
export function validateSearchPage(limit: number, offset: number): { limit: number; offset: number } {
  if (limit > searchLimits.maxLimit)
    throw invalidArgument(`limit must be 1 to ${searchLimits.maxLimit} (got ${limit})`);
  const page = { limit: limit === 0 ? searchLimits.defaultLimit : limit, offset };
  if (page.offset + page.limit > searchLimits.maxRankingDepth) {
    throw invalidArgument(
      `offset + limit must be at most ${searchLimits.maxRankingDepth}, the deepest a ranking goes (got ${page.offset + page.limit})`,
      "narrow the search with filters (thread, tags, metadata, dates) instead of paging deeper",
    );
  }
  return page;
}

export function validateVector(model: string, vector: readonly number[]): void {
  if (model.length === 0 || model.length > searchLimits.modelNameLength)
    throw invalidArgument(`embedding_model must be 1 to ${searchLimits.modelNameLength} characters`);
  if (vector.length === 0 || vector.length > searchLimits.maxDimension)
    throw invalidArgument(`vector must have 1 to ${searchLimits.maxDimension} values (got ${vector.length})`);
  if (!vector.every(Number.isFinite)) throw invalidArgument("vector must hold only finite numbers");
}

/**
 * Feedback knobs checked and defaulted. Prefix queries are refused: their
 * terms stand for every word they start, which a weighted query of whole
 * words cannot express.
 */
export function validateFeedback(request: FeedbackRequest, mode: FullTextMode): FeedbackOptions {
  if (mode === "prefix")
    throw invalidArgument(
      "feedback is not available in prefix mode",
      "use mode any or match with feedback, or prefix without it",
    );
  const documents = boundedCount(
    request.documents,
    feedbackLimits.defaultDocuments,
    feedbackLimits.maxDocuments,
    "feedback documents",
  );
  const terms = boundedCount(request.terms, feedbackLimits.defaultTerms, feedbackLimits.maxTerms, "feedback terms");
  const queryWeight = request.queryWeight ?? feedbackLimits.defaultQueryWeight;
  if (!(queryWeight >= 0 && queryWeight <= 1))
    throw invalidArgument(`feedback query weight must be 0 to 1 (got ${queryWeight})`);
  const relevantIds = request.relevantIds ?? [];
  if (relevantIds.length === 0) return { documents, terms, queryWeight };
  relevantIds.forEach((id, index) => {
    if (!isUuid(id)) throw invalidArgument(`feedback relevant_ids[${index}] must be a full entry id`);
  });
  const given = request.relevantWeights ?? [];
  if (given.length > 0 && given.length !== relevantIds.length)
    throw invalidArgument(
      `feedback relevant_weights must give one weight per relevant id (got ${given.length} for ${relevantIds.length})`,
    );
  if (!given.every((weight) => Number.isFinite(weight) && weight > 0))
    throw invalidArgument("feedback relevant_weights must be finite and greater than 0");
  // At most `documents` of them are read, as a first pass would keep its best `documents`.
  const ids = relevantIds.slice(0, documents);
  const weights = given.length > 0 ? given.slice(0, documents) : ids.map(() => 1);
  return { documents, terms, queryWeight, relevant: { ids, weights } };
}

/** The ids a full-text search ranks within, checked; undefined when it ranks every entry. */
export function validateWithinIds(ids: readonly string[] | undefined): readonly string[] | undefined {
  if (ids === undefined || ids.length === 0) return undefined;
  if (ids.length > searchLimits.maxRankingDepth)
    throw invalidArgument(`within_ids may hold at most ${searchLimits.maxRankingDepth} ids (got ${ids.length})`);
  ids.forEach((id, index) => {
    if (!isUuid(id)) throw invalidArgument(`within_ids[${index}] must be a full entry id`);
  });
  return ids;
}

export function boundedCount(value: number, fallback: number, max: number, field: string): number {
  if (value === 0) return fallback;
  if (value > max) throw invalidArgument(`${field} must be 1 to ${max} (got ${value})`);
  return value;
}
