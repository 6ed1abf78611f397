/**
 * What every search's legs share: the latency histogram and its stage times,
 * the deadlines of the embedder and the reranker, a failed leg's description,
 * and the semantic leg (the query embedding, then the ranking).
 */
import { histogram, isContextHubError } from "@context-hub/common";
import type { SearchFilterArgs } from "../clients/search-filter.js";
import type { SearchClient } from "../clients/search-client.js";
import type { Principal } from "../principal.js";

export const searchSeconds = histogram(
  "contexthub_search_seconds",
  "Search latency by mode (filter, fts, semantic, hybrid) and leg, in seconds.",
  ["mode", "leg"],
);

/** Milliseconds spent in each stage of one search (embed, fts, semantic, fusion, feedback, passages, rerank, listings), for explain_query. */
export type StageTimes = Record<string, number>;

/** How long a search waits for a query embedding and for the reranker before going on without them. */
export const searchDeadlines = { embedMs: 5_000, rerankMs: 5_000 } as const;

/** Times a leg into the search histogram, whatever its outcome, and into `times[leg]` (ms) when given. */
export async function timed<T>(mode: string, leg: string, work: () => Promise<T>, times?: StageTimes): Promise<T> {
  const stop = searchSeconds.startTimer({ mode, leg });
  const started = performance.now();
  try {
    return await work();
  } finally {
    stop();
    if (times !== undefined) times[leg] = roundMs(performance.now() - started);
  }
}

/** Milliseconds to a tenth, as explain_query shows them. */
export const roundMs = (ms: number) => Math.round(ms * 10) / 10;

/** What a failed leg tells the caller: its code and message, never a stack. */
export function describeFailure(error: unknown): string {
  return isContextHubError(error) ? `${error.code}: ${error.message}` : "an internal error";
}

/** The query embedding and the semantic ranking under the same filters; fails if either step does. */
export async function semanticRanking(
  search: SearchClient,
  principal: Principal,
  query: string,
  filter: SearchFilterArgs,
  page: { limit: number; offset: number; idsOnly?: boolean },
  mode: string,
  times?: StageTimes,
) {
  const embedding = await timed(mode, "embed", () => search.embedQuery(query, searchDeadlines.embedMs), times);
  const reply = await timed(
    mode,
    "semantic",
    () =>
      search.semantic(principal, {
        embedding,
        filter,
        limit: page.limit,
        offset: page.offset,
        idsOnly: page.idsOnly === true,
      }),
    times,
  );
  return { model: embedding.model, reply };
}
