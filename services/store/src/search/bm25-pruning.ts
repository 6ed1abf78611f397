/**
 * Exact top-k BM25 without scoring every match (the MaxScore idea). An
 * any-word query over common words matches most of a tenant, and ranking it
 * scores every match. But a word's BM25 share can never pass
 * `weight × (k1 + 1)` (term-frequency saturation), so the entries holding
 * only common words score at most the sum of those words' ceilings. Ranking
 * first the few entries holding one of the query's rarer words, and finding
 * the page's last score above that sum, proves the page is the one a full
 * ranking gives: same entries, same scores, same order. When the proof
 * fails, the caller ranks every match as before.
 */
import type { Bm25Parameters } from "./search-config.js";
import { idf } from "./bm25-sql.js";

/** A pruned ranking's plan: rank the entries holding one of `candidates`, then check the page against `ceiling`. */
export interface PruningPlan {
  /** The query's rarest lexemes, whose entries together number at most the candidate limit. */
  candidates: string[];
  /** The most any entry holding none of `candidates` can score: the sum of the other terms' ceilings. */
  ceiling: number;
}

/**
 * The plan for an any-word query with terms `terms` (lexeme → how often the
 * query repeats it) whose document frequencies over the caller's view are
 * `frequencies`, among `documents` entries; undefined when pruning cannot
 * help: every term is needed to reach `maxCandidates` entries, or even the
 * rarest one is held by more than that.
 */
export function planPruning(
  terms: ReadonlyMap<string, number>,
  frequencies: ReadonlyMap<string, number>,
  documents: number,
  bm25: Bm25Parameters,
  maxCandidates: number,
): PruningPlan | undefined {
  const held = [...terms]
    .map(([lexeme, repeats]) => ({ lexeme, repeats, frequency: frequencies.get(lexeme) ?? 0 }))
    .filter((term) => term.frequency > 0)
    .sort((left, right) => left.frequency - right.frequency || (left.lexeme < right.lexeme ? -1 : 1));
  const candidates: string[] = [];
  let covered = 0;
  let index = 0;
  for (; index < held.length; index++) {
    const term = held[index]!;
    if (covered + term.frequency > maxCandidates) break;
    covered += term.frequency;
    candidates.push(term.lexeme);
  }
  if (candidates.length === 0 || index === held.length) return undefined;
  let ceiling = 0;
  for (const term of held.slice(index)) ceiling += term.repeats * idf(documents, term.frequency) * (bm25.k1 + 1);
  return { candidates, ceiling };
}

/**
 * Whether a page ranked over a plan's candidates is the page of the full
 * ranking: it is full (`limit` rows; the rows before the offset were all
 * ranked above it) and its last score is above the ceiling of every entry
 * left out, with room for the rounding of a sum in another order.
 */
export function prunedPageHolds(scores: readonly number[], limit: number, ceiling: number): boolean {
  if (limit === 0) return true;
  if (scores.length < limit) return false;
  const last = scores[scores.length - 1]!;
  return last > ceiling * (1 + 1e-9) + 1e-12;
}
