/** Full-text search: the request checked, the ranking (with feedback when asked for) and its page. */
import { invalidArgument } from "@context-hub/common";
import { requirePrincipal, type Principal } from "../model/principal.js";
import { validateSearchFilter } from "../model/search-filter.js";
import type { FeedbackUsed, FullTextRow } from "./search-ports.js";
import type { FullTextRequest, FullTextResult, SearchServiceDependencies } from "./search-model.js";
import { validateFeedback, validateSearchPage, validateWithinIds } from "./search-validation.js";
import { chooseQueryLanguage, parseHeadline, validateFullTextQuery } from "./text-search.js";

/** The visible, filtered entries matching a full-text query, best first. */
export async function searchFullText(
  dependencies: SearchServiceDependencies,
  principal: Principal | undefined,
  request: FullTextRequest,
): Promise<FullTextResult> {
  const { repository, languages } = dependencies;
  const caller = requirePrincipal(principal, "context:read");
  const text = validateFullTextQuery(request.query);
  const language = chooseQueryLanguage(request.language, languages.configured, languages.allowed);
  const filter = validateSearchFilter(request.filter);
  const page = validateSearchPage(request.limit, request.offset);
  const query = { mode: request.mode, text, language };
  const warnings: string[] = [];
  const feedback = request.feedback === undefined ? undefined : validateFeedback(request.feedback, request.mode);
  const idsOnly = request.idsOnly === true;
  if (idsOnly && request.highlight)
    throw invalidArgument("highlight needs the listings: ask for ids_only or highlight, not both");
  const within = validateWithinIds(request.withinIds);
  if (filter.asOf !== undefined && (within !== undefined || feedback?.relevant !== undefined)) {
    throw invalidArgument(
      "within_ids and feedback relevant_ids rank today's entries and are not available with as_of",
      "leave them out to search as of an instant",
    );
  }
  const window = { limit: page.limit + 1, offset: page.offset };
  let rows: FullTextRow[];
  let used: FeedbackUsed | undefined;
  if (feedback === undefined)
    rows = await repository.fullText(caller, query, filter, window, request.highlight, idsOnly, within);
  else
    ({ rows, feedback: used } = await repository.fullTextWithFeedback(
      caller,
      query,
      filter,
      window,
      request.highlight,
      feedback,
      idsOnly,
      within,
    ));
  if (rows.length === 0 && (await repository.isEmptyQuery(query))) {
    warnings.push(
      `the query has no searchable words in ${language} (only stop words or punctuation), so nothing can match it`,
    );
  }
  return {
    hits: rows.slice(0, page.limit).map((row, index) => ({
      entryId: row.id,
      entry: row.entry,
      score: row.score,
      rank: page.offset + index + 1,
      chunk: undefined,
      highlights: row.headline === undefined ? [] : parseHeadline(row.headline),
    })),
    hasMore: rows.length > page.limit,
    language,
    warnings,
    ...(used === undefined ? {} : { feedback: used }),
  };
}
