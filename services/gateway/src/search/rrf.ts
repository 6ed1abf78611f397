/**
 * Reciprocal rank fusion (Cormack, Clarke and Büttcher, 2009): each ranked
 * list gives an item `weight / (k + rank)` (rank 1-based), and an item's
 * fused score is the sum over the lists that hold it. It needs no score
 * calibration between legs, which is why full-text ranks (ts_rank_cd) and
 * cosine similarities can be fused without normalising either.
 */

/** One leg's ranking: ids best first. */
export interface RankedList {
  leg: string;
  ids: readonly string[];
  /** How much this leg counts (default 1; 0 ignores it). */
  weight?: number;
}

export interface FusedItem {
  id: string;
  score: number;
  /** The item's 1-based rank in each list that holds it. */
  ranks: Record<string, number>;
}

/** The usual k: large enough that the top few ranks of one leg do not drown the other. */
export const defaultRrfK = 60;

/**
 * Fuses `lists` by reciprocal rank with constant `k`. Best first; ties go to
 * the item with the better best rank in any list, then to the smaller id, so
 * the order is deterministic. An id listed twice in one list counts at its
 * first (best) rank.
 */
export function fuseByReciprocalRank(lists: readonly RankedList[], k: number = defaultRrfK): FusedItem[] {
  if (!(k > 0)) throw new RangeError(`k must be positive, got ${k}`);
  const fused = new Map<string, FusedItem>();
  for (const list of lists) {
    const weight = list.weight ?? 1;
    list.ids.forEach((id, index) => {
      const item = fused.get(id) ?? { id, score: 0, ranks: {} };
      if (item.ranks[list.leg] !== undefined) return;
      item.ranks[list.leg] = index + 1;
      item.score += weight / (k + index + 1);
      fused.set(id, item);
    });
  }
  const bestRank = (item: FusedItem) => Math.min(...Object.values(item.ranks));
  return [...fused.values()].sort(
    (a, b) => b.score - a.score || bestRank(a) - bestRank(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
}
