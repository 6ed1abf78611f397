/** A hybrid search's two legs: run together, each settled on its own, and their rankings collected. */
import type { SearchFilterArgs } from "../clients/search-filter.js";
import type { FullTextModeName, SearchClient, SearchEntry, TextSpan } from "../clients/search-client.js";
import type { Principal } from "../principal.js";
import { semanticRanking, timed, type StageTimes } from "./search-legs.js";

/** What the legs take from a hybrid search's request. */
interface LegsRequest {
  query: string;
  ftsMode: FullTextModeName;
  filter: SearchFilterArgs;
  ftsFeedback?: boolean | undefined;
}

type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };
const settle = <T>(promise: Promise<T>): Promise<Settled<T>> =>
  promise.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );

export type RankedId = { id: string; score: number };

/** What the legs found: each leg's ranking (ids and scores), the listings a leg returned, and the best chunks. */
export interface LegRankings {
  fts: RankedId[];
  semantic: RankedId[];
  entries: Map<string, SearchEntry>;
  chunks: Map<string, TextSpan>;
}

/**
 * Both legs at once, each to `legDepth`, settled so that one failing leaves
 * the other. As of an instant only the full-text leg runs, lists the
 * versions current then itself, and runs feedback itself when asked.
 */
export function runLegs(
  search: SearchClient,
  principal: Principal,
  request: LegsRequest,
  legDepth: number,
  historical: boolean,
  times: StageTimes,
) {
  const idsOnly = !historical;
  return Promise.all([
    settle(
      timed(
        "hybrid",
        "fts",
        () =>
          search.fullText(principal, {
            query: request.query,
            mode: request.ftsMode,
            filter: request.filter,
            limit: legDepth,
            offset: 0,
            idsOnly,
            // As of an instant the leg runs feedback itself (a first pass and a second over every entry): the
            // re-scoring below needs today's candidates from both legs.
            ...(request.ftsFeedback === true && historical ? { feedback: {} } : {}),
          }),
        times,
      ),
    ),
    historical
      ? undefined
      : settle(
          semanticRanking(
            search,
            principal,
            request.query,
            request.filter,
            { limit: legDepth, offset: 0, idsOnly },
            "hybrid",
            times,
          ),
        ),
  ]);
}

/** Each leg's ranking (ids and scores), the listings a leg returned, and the semantic leg's best chunks. */
export function rankingsOf(
  ftsHits: readonly { entryId: string; score: number; entry?: SearchEntry | undefined }[],
  semanticHits: readonly {
    entryId: string;
    score: number;
    entry?: SearchEntry | undefined;
    chunk?: TextSpan | undefined;
  }[],
): LegRankings {
  const legs: LegRankings = { fts: [], semantic: [], entries: new Map(), chunks: new Map() };
  for (const hit of ftsHits) {
    if (hit.entry !== undefined) legs.entries.set(hit.entryId, hit.entry);
    legs.fts.push({ id: hit.entryId, score: hit.score });
  }
  for (const hit of semanticHits) {
    if (hit.entry !== undefined && !legs.entries.has(hit.entryId)) legs.entries.set(hit.entryId, hit.entry);
    legs.semantic.push({ id: hit.entryId, score: hit.score });
    if (hit.chunk !== undefined) legs.chunks.set(hit.entryId, hit.chunk);
  }
  return legs;
}
