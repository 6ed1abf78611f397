/**
 * Refusing a text early whose embedding cannot finish within its budget.
 *
 * The worker pool stops a job when its budget runs out, so a text that needs
 * more (a megabyte of words outside the vocabulary: each costs its own
 * n-gram vectors) burns the whole budget of CPU before it is refused. A long
 * text is embedded chunk by chunk, so its pace can be read as it goes: every
 * tenth of the budget, the pace of the last tenth and the characters still to
 * go give a projection, and a text projected past its budget is refused
 * then, with the same TEXT_BUDGET_EXCEEDED the pool sends.
 *
 * The projection is the optimistic one. A text of ordinary words speeds up as
 * the worker's term cache fills: its count of new words grows more slowly
 * than its length (Heaps' law, as the length to a power of 0.4–0.7 for
 * prose). So its cost is taken to grow as the characters done to the power
 * 0.4, the slowest of those, fitted to the last stretch: the rest takes that
 * stretch's time times (n^0.4 − d^0.4) / (d^0.4 − s^0.4) for a stretch from s
 * to d characters of n. A text of new words throughout, whose cost grows with
 * its length, is refused within a few tenths of its budget once its real
 * cost is well past it; a text whose cost grows at least as fast as that
 * power is never refused by projection while it would fit (at worst the pool
 * stops it at the budget). Only a text whose cost is all at its start (a
 * first chunk of new words, then one word repeated) could be refused early
 * that would have fitted.
 */
import { ContextHubError } from "@context-hub/common";

/** A projection is made every tenth of the budget, from the stretch of the tenth before. */
const paceShare = 0.1;
/** The power of the characters done that a text's cost is taken to grow with, at the least. */
const growth = 0.4;

/** The budget a call's embedding runs under, and where its setting lives (named in the remedy). */
export interface EmbeddingBudget {
  budgetMs: number;
  budgetSetting: string;
}

/**
 * `embed` of each text in turn, refused with TEXT_BUDGET_EXCEEDED (stage
 * `embed`) as soon as the optimistic projection (above) of the time it takes
 * comes to more than `budgetMs`. `now` is the clock, in milliseconds.
 */
export function embedWithinBudget<T>(
  texts: readonly string[],
  embed: (text: string) => T,
  { budgetMs, budgetSetting }: EmbeddingBudget,
  now: () => number = () => performance.now(),
): T[] {
  const totalChars = texts.reduce((sum, text) => sum + text.length, 0);
  const started = now();
  let doneChars = 0;
  // The time and characters at the last check, which the next one measures the pace from.
  let paceFrom: { at: number; chars: number } | undefined;
  let nextCheck = started + budgetMs * paceShare;
  const results: T[] = [];
  for (const text of texts) {
    results.push(embed(text));
    doneChars += text.length;
    const at = now();
    if (at < nextCheck || doneChars === totalChars) continue;
    nextCheck = at + budgetMs * paceShare;
    const from = paceFrom;
    paceFrom = { at, chars: doneChars };
    // The first stretch holds the start's warm-up (compiling, the first words of the cache): it sets the mark only.
    if (from === undefined || doneChars === from.chars) continue;
    const fitted = (chars: number) => chars ** growth;
    const projectedMs =
      at -
      started +
      ((at - from.at) * (fitted(totalChars) - fitted(doneChars))) / (fitted(doneChars) - fitted(from.chars));
    if (projectedMs > budgetMs) {
      throw new ContextHubError(
        "TEXT_BUDGET_EXCEEDED",
        `embed: at the pace of its last ${doneChars - from.chars} characters, the text would take at least ${Math.round(projectedMs)} ms, over its ${budgetMs} ms budget, so the work was stopped after ${Math.round(at - started)} ms and nothing was changed`,
        {
          remedy: `split the text into smaller entries, or ask an operator to raise the budget (${budgetSetting})`,
          details: { stage: "embed", budget_ms: budgetMs, projected_ms: Math.round(projectedMs) },
        },
      );
    }
  }
  return results;
}
