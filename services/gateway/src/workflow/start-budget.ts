/**
 * The token budget of a session start: which items of each part fit. Parts
 * are filled in priority order until an item does not fit, so when the
 * answer would be too long the least needed part loses its items first, and
 * a part is cut only once every part after it is empty.
 */

/** The parts, most needed first: work addressed to the agent, then standing knowledge, then history. */
export const keepOrder = ["handoffs", "pinned_memories", "session_summary", "session_events", "entries"] as const;
export type StartPartName = (typeof keepOrder)[number];

/** The order parts are cut in: the reverse of keepOrder. */
export const cutOrder: readonly StartPartName[] = [...keepOrder].reverse();

/** How many items of each part are kept. */
export type Kept = Record<StartPartName, number>;

/**
 * Tokens a model is charged for `text`, estimated as one per four
 * characters (rounded up): the usual rule of thumb for English and JSON
 * with tiktoken-style tokenizers, and cheap enough to apply per item.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/**
 * Chooses how many items of each part to keep within `maxTokens`.
 *
 * `costs[part]` are the estimated tokens of each item of a part, in the order
 * its items are kept; `answerTokens(kept)` estimates the whole answer with
 * that many items of each part. The fixed answer (every part empty) is
 * charged first; then the parts are filled in keepOrder, each item while it
 * fits in what is left. The first item that does not fit ends the filling:
 * it and everything after it are left out, so a part shows items only when
 * every part before it is whole, and each part shows a prefix of its order.
 * Last, the whole answer is measured, and while it exceeds the budget (item
 * costs leave out the separators between items) items are dropped from the
 * end, in cutOrder. Only an answer whose fixed part alone exceeds the budget
 * keeps nothing and still exceeds it.
 */
export function fitToBudget(
  costs: Readonly<Record<StartPartName, readonly number[]>>,
  maxTokens: number,
  answerTokens: (kept: Kept) => number,
): Kept {
  const kept: Kept = { handoffs: 0, pinned_memories: 0, session_summary: 0, session_events: 0, entries: 0 };
  let left = maxTokens - answerTokens(kept);
  filling: for (const part of keepOrder) {
    for (const cost of costs[part]) {
      if (cost > left) break filling;
      kept[part] += 1;
      left -= cost;
    }
  }
  while (answerTokens(kept) > maxTokens) {
    const part = cutOrder.find((name) => kept[name] > 0);
    if (part === undefined) break;
    kept[part] -= 1;
  }
  return kept;
}
