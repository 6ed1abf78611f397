/**
 * Exact top-k BM25 without scoring every match (the MaxScore idea). An
 * any-word query over common words matches most of a tenant, and ranking it
 * scores every match. But a word's BM25 share can never pass
 * `weight × (k1 + 1)` (term-frequency saturation), its ceiling, so an entry
 * scores less than the sum of the ceilings of the query's words it holds.
 * Two ways to use that, both giving exactly the full ranking's page (same
 * entries, scores and order) or handing back to it:
 *
 * - Rarer words first (planPruning): rank the few entries holding one of the
 *   query's rarer words; a page whose last score is above the sum of the
 *   common words' ceilings is the full ranking's.
 * - Seeded by every word (planSeeding): when every word is common, rank the
 *   entries holding all of them; that page's last score is a floor the full
 *   page's last score cannot be below, and only entries holding a set of
 *   words whose ceilings together pass the floor can reach it
 *   (qualifyingTermSets). The full-text index finds exactly those entries,
 *   less the seed's (of which only its best can be on the page, and they are
 *   added by id), and ranking them gives the page.
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

/** The most a term repeated `repeats` times in the query and held by `frequency` of `documents` entries adds to a score. */
const termCeiling = (repeats: number, frequency: number, documents: number, bm25: Bm25Parameters) =>
  repeats * idf(documents, frequency) * (bm25.k1 + 1);

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
  // A word no visible entry held when its frequency was counted costs the candidates nothing, and an entry written
  // since then that holds it may score high: it is always a candidate.
  const held = [...terms]
    .map(([lexeme, repeats]) => ({ lexeme, repeats, frequency: frequencies.get(lexeme) ?? 0 }))
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
  if (candidates.length === 0 || index === held.length || held[index - 1]!.frequency === 0) return undefined;
  let ceiling = 0;
  for (const term of held.slice(index)) ceiling += termCeiling(term.repeats, term.frequency, documents, bm25);
  return { candidates, ceiling };
}

/** Most distinct words a seeded ranking weighs (every set of them is weighed: 2^words). */
export const maxSeededTerms = 8;

/** Most sets of words a seeded ranking asks the full-text index for; with more, every match is ranked. */
export const maxQualifyingSets = 32;

/** A seeded ranking's plan: rank the entries holding every word of `seed`, then those `qualifyingTermSets` name. */
export interface SeedingPlan {
  /** The query's words some visible entry holds. */
  seed: string[];
  /** Every word's ceiling (its weight × (k1 + 1)), a word no entry held when counted included. */
  ceilings: Map<string, number>;
}

/**
 * The plan for an any-word query of common words (terms and frequencies as
 * for planPruning); undefined when it cannot help: the query has one word
 * or more than maxSeededTerms, or its words' entries together fit
 * `maxCandidates` (ranking them all is cheap; 0 turns seeding off).
 */
export function planSeeding(
  terms: ReadonlyMap<string, number>,
  frequencies: ReadonlyMap<string, number>,
  documents: number,
  bm25: Bm25Parameters,
  maxCandidates: number,
): SeedingPlan | undefined {
  if (maxCandidates <= 0 || terms.size < 2 || terms.size > maxSeededTerms) return undefined;
  const ceilings = new Map<string, number>();
  const seed: string[] = [];
  let matches = 0;
  for (const [lexeme, repeats] of terms) {
    const frequency = frequencies.get(lexeme) ?? 0;
    ceilings.set(lexeme, termCeiling(repeats, frequency, documents, bm25));
    if (frequency > 0) seed.push(lexeme);
    matches += frequency;
  }
  if (seed.length < 2 || matches <= maxCandidates) return undefined;
  return { seed: seed.sort(), ceilings };
}

/**
 * The last score of a full page (`limit` rows; the rows before its offset
 * ranked above it), which the full ranking's page at the same offset
 * cannot end below; undefined for a page that is not full.
 */
export function pageFloor(scores: readonly number[], limit: number): number | undefined {
  return limit > 0 && scores.length === limit ? scores[limit - 1] : undefined;
}

/**
 * The smallest sets of words whose ceilings together pass `floor` (with
 * room for the rounding of a sum in another order), each sorted, in a
 * stable order: an entry holding none of these sets entirely scores below
 * the floor, so it is not on the page. Undefined when they are more than
 * maxQualifyingSets.
 */
export function qualifyingTermSets(ceilings: ReadonlyMap<string, number>, floor: number): string[][] | undefined {
  const words = [...ceilings.keys()].sort();
  if (words.length > maxSeededTerms) return undefined;
  const ceiling = words.map((word) => ceilings.get(word)!);
  const below = floor - Math.abs(floor) * 1e-9 - 1e-12;
  const sum = (set: number) => ceiling.reduce((total, value, index) => (set & (1 << index) ? total + value : total), 0);
  const sets: string[][] = [];
  for (let set = 1; set < 1 << words.length; set++) {
    if (!(sum(set) > below)) continue;
    // Minimal: dropping any one word leaves a set that no longer passes.
    const minimal = words.every((_, index) => !(set & (1 << index)) || !(sum(set & ~(1 << index)) > below));
    if (!minimal) continue;
    if (sets.length === maxQualifyingSets) return undefined;
    sets.push(words.filter((_, index) => set & (1 << index)));
  }
  return sets;
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
