/**
 * Several passages per result (deep reading): the store cuts up to
 * `perEntry` windows of each shown entry that do not overlap, each with the
 * outline node it starts in, and the reranker scores them all in one call —
 * the scorer that ranks hybrid's head — so a caller can go from a result
 * straight to `read_context_range` on the part that answers. Documented in
 * docs/retrieval.md.
 */
import type { Principal } from "../principal.js";
import type { EntryPassage, SearchClient } from "../clients/search-client.js";
import { describeFailure, timed, type StageTimes } from "./search-legs.js";
import type { HitPassage } from "./search-views.js";

/** How long a deep-reading passage is at most, in characters (as long as the passages hybrid reranks). */
export const deepPassageChars = 1_200;

/** The most passages one search reads in all (the store's bound on a passages request). */
export const maxPassagesPerSearch = 200;

/** The most passages one result gets. */
export const maxPassagesPerEntry = 5;

/**
 * The passages of `entryIds` for `query`, by entry: up to `perEntry` each,
 * best first by the reranker's score. A reranker failure keeps the store's
 * order (most distinct query words first) with null scores and a warning; a
 * store failure leaves every result without passages and says so.
 */
export async function passagesOfEntries(
  search: SearchClient,
  principal: Principal,
  request: {
    query: string;
    entryIds: readonly string[];
    perEntry: number;
    rerankDeadlineMs: number;
    /** How long a passage is at most (default deepPassageChars). */
    maxChars?: number | undefined;
  },
  times: StageTimes,
  warnings: string[],
): Promise<Map<string, HitPassage[]>> {
  const byEntry = new Map<string, HitPassage[]>();
  if (request.entryIds.length === 0) return byEntry;
  let found: EntryPassage[];
  try {
    found = await timed(
      "hybrid",
      "entry_passages",
      () =>
        search.passages(principal, {
          query: request.query,
          items: request.entryIds.map((entryId) => ({ entryId })),
          maxChars: request.maxChars ?? deepPassageChars,
          perItem: request.perEntry,
        }),
      times,
    );
  } catch (error) {
    warnings.push(`passages could not be read, so results come without them (${describeFailure(error)})`);
    return byEntry;
  }
  let scores: Map<string, number> | undefined;
  try {
    const scored = await timed(
      "hybrid",
      "passage_rerank",
      () =>
        search.rerank(
          request.query,
          found.map((passage, index) => ({ id: String(index), text: passage.text })),
          request.rerankDeadlineMs,
        ),
      times,
    );
    scores = new Map(scored.map((result) => [result.id, result.score]));
  } catch (error) {
    warnings.push(
      `scoring the passages failed, so each result's passages are in the order of the query words they hold (${describeFailure(error)})`,
    );
  }
  found.forEach((passage, index) => {
    const list = byEntry.get(passage.entryId) ?? [];
    list.push({
      nodeId: passage.nodeId,
      start: passage.span.start,
      end: passage.span.end,
      text: passage.text,
      score: scores?.get(String(index)) ?? null,
    });
    byEntry.set(passage.entryId, list);
  });
  // A stable sort: unscored passages keep the store's order.
  for (const list of byEntry.values()) list.sort((a, b) => (b.score ?? 0) - (a.score ?? 0));
  return byEntry;
}
