/** Reranking the head of a hybrid search's fused ranking over one passage per entry, blended with the fused score. */
import type { SearchClient, TextSpan } from "../clients/search-client.js";
import type { Principal } from "../principal.js";
import type { FusedItem } from "./rrf.js";
import { searchDeadlines, timed, type StageTimes } from "./search-legs.js";

/**
 * How much the reranker's score counts in a reranked result's score; the
 * rest is its fused score rescaled over the reranked head. Chosen on
 * Cranfield and checked on CISI (docs/retrieval.md).
 */
export const defaultRerankWeight = 0.3;

/** Passage length handed to the reranker, in characters (about a chunk). */
export const rerankPassageChars = 1_200;

/** A fused result in the order shown, with its rerank rank and score and its blended score once reranked. */
export interface RankedResult {
  item: FusedItem;
  rerank: { rank: number; score: number } | undefined;
  blended: number | undefined;
}

/** The fused ranking as it stands, nothing reranked. */
export const unreranked = (fused: readonly FusedItem[]): RankedResult[] =>
  fused.map((item) => ({ item, rerank: undefined, blended: undefined }));

/**
 * The head reordered by `weight` × its rerank score + (1 − `weight`) × its
 * fused score rescaled to [0, 1] over the head: the reranker judges a
 * passage, the fused score the whole entry from both legs, and rescaling
 * puts every fusion method on the reranker's scale. An item the reranker
 * did not score sorts after those it did; ties keep the fused order.
 */
export function blendHead(
  head: readonly FusedItem[],
  rerankOf: ReadonlyMap<string, { rank: number; score: number }>,
  weight: number,
): RankedResult[] {
  let low = Number.POSITIVE_INFINITY;
  let high = Number.NEGATIVE_INFINITY;
  for (const item of head) {
    low = Math.min(low, item.score);
    high = Math.max(high, item.score);
  }
  const rescaledFused = (score: number) => (high > low ? (score - low) / (high - low) : 1);
  return head
    .map((item, fusedIndex) => {
      const rerank = rerankOf.get(item.id);
      return {
        item,
        rerank,
        fusedIndex,
        blended: rerank === undefined ? undefined : weight * rerank.score + (1 - weight) * rescaledFused(item.score),
      };
    })
    .sort(
      (a, b) =>
        (b.blended ?? Number.NEGATIVE_INFINITY) - (a.blended ?? Number.NEGATIVE_INFINITY) ||
        a.fusedIndex - b.fusedIndex,
    )
    .map(({ item, rerank, blended }) => ({ item, rerank, blended }));
}

/**
 * The fused ranking with its first `depth` results reranked over one passage
 * each (`chunks`: the semantic leg's best chunk of an entry, where it found
 * one; else the store cuts a window around the query's words) and the tail
 * behind them in fused order. Fails when the passages or the reranker do;
 * the caller keeps the fused order then. `whileReranking` is told the head
 * as soon as its passages are read, before the reranker is called.
 */
export async function rerankHead(
  search: SearchClient,
  principal: Principal,
  query: string,
  fused: readonly FusedItem[],
  chunks: ReadonlyMap<string, TextSpan>,
  options: {
    depth: number;
    weight: number;
    /** Called with the head's ids once its passages are read: what else the head needs can be read meanwhile. */
    whileReranking?: ((ids: readonly string[]) => void) | undefined;
  },
  times: StageTimes,
): Promise<{ order: RankedResult[]; reranked: number }> {
  const head = fused.slice(0, Math.min(fused.length, options.depth));
  const passages = await timed(
    "hybrid",
    "passages",
    () =>
      search.passages(principal, {
        query,
        items: head.map((item) => ({ entryId: item.id, span: chunks.get(item.id) })),
        maxChars: rerankPassageChars,
      }),
    times,
  );
  // After the passages, not beside them: on PGlite the store would run both reads in turn, and the reranker wait.
  options.whileReranking?.(head.map((item) => item.id));
  const scored = await timed(
    "hybrid",
    "rerank",
    () =>
      search.rerank(
        query,
        passages.map((passage) => ({ id: passage.entryId, text: passage.text })),
        searchDeadlines.rerankMs,
      ),
    times,
  );
  const rerankOf = new Map(scored.map((result, index) => [result.id, { rank: index + 1, score: result.score }]));
  const headIds = new Set(head.map((item) => item.id));
  return {
    order: [...blendHead(head, rerankOf, options.weight), ...unreranked(fused.filter((item) => !headIds.has(item.id)))],
    reranked: rerankOf.size,
  };
}
