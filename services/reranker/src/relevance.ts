import { cosineSimilarity, embedText, isStopword, tokenize, toStem, type WordVectors } from "@context-hub/text";

/** How much each signal counts; they sum to 1, so scores lie in [0, 1]. Chosen on Cranfield, checked on CISI (docs/reranker.md). */
export const relevanceWeights: RelevanceWeights = Object.freeze({
  bm25: 0.65,
  proximity: 0.3,
  phrase: 0.05,
  semantic: 0,
});

/** BM25's term-frequency saturation and length normalisation, the usual values. */
export const passageBm25 = Object.freeze({ k1: 1.2, b: 0.75 });

export interface RelevanceWeights {
  bm25: number;
  proximity: number;
  phrase: number;
  semantic: number;
}

/** The parts of one passage's score, each in [0, 1]. */
export interface RelevanceBreakdown {
  bm25: number;
  proximity: number;
  phrase: number;
  semantic: number;
  score: number;
}

/**
 * Smallest number of consecutive tokens containing one occurrence of every
 * listed term (each term given by its sorted positions).
 */
function smallestCoveringWindow(positionsPerTerm: number[][]): number {
  const events: [position: number, term: number][] = [];
  positionsPerTerm.forEach((positions, term) => {
    for (const position of positions) events.push([position, term]);
  });
  events.sort((left, right) => left[0] - right[0]);
  const seen = new Array<number>(positionsPerTerm.length).fill(0);
  let covered = 0;
  let best = Number.POSITIVE_INFINITY;
  let left = 0;
  for (const [position, term] of events) {
    if (seen[term]!++ === 0) covered++;
    while (covered === positionsPerTerm.length) {
      const [leftPosition, leftTerm] = events[left] as [number, number];
      best = Math.min(best, position - leftPosition + 1);
      if (--seen[leftTerm]! === 0) covered--;
      left++;
    }
  }
  return best;
}

/**
 * Whether `sequence` occurs in `tokens` as consecutive items, in time linear
 * in both lengths (Knuth–Morris–Pratt: a mismatch never moves back in
 * `tokens`, so a long query that almost matches everywhere stays cheap).
 */
function containsSequence(tokens: readonly string[], sequence: readonly string[]): boolean {
  if (sequence.length === 0) return true;
  // fallback[i]: length of the longest proper prefix of sequence[0..i] that is also its suffix.
  const fallback = new Array<number>(sequence.length).fill(0);
  for (let index = 1, matched = 0; index < sequence.length; index++) {
    while (matched > 0 && sequence[index] !== sequence[matched]) matched = fallback[matched - 1] as number;
    if (sequence[index] === sequence[matched]) matched++;
    fallback[index] = matched;
  }
  let matched = 0;
  for (const token of tokens) {
    while (matched > 0 && token !== sequence[matched]) matched = fallback[matched - 1] as number;
    if (token === sequence[matched]) matched++;
    if (matched === sequence.length) return true;
  }
  return false;
}

/**
 * Scores passages against a query, deterministically, with four signals:
 *
 * - bm25: Okapi BM25 of the passage over the query's terms (its light-stemmed
 *   tokens minus stopwords, all tokens if only stopwords remain; a repeated
 *   term counts again), with k1 = 1.2 and b = 0.75. Document frequencies and
 *   the average length come from the passages of this call only, never from
 *   stored data: idf(t) = ln(1 + (N − df + 0.5) / (df + 0.5)). Divided by
 *   Σ qtf(t)·idf(t)·(k1 + 1), its value as every term's frequency grows
 *   without bound, so it lies in [0, 1).
 * - proximity = (m / |terms|) · (m − 1) / (w − 1), where m ≥ 2 matched terms
 *   fit in a smallest window of w tokens: 1 when all terms sit side by side.
 *   With a one-term query it is 1 when the term occurs; otherwise 0.
 * - phrase = 1 when the query's token sequence occurs verbatim (after
 *   stemming) in the passage, else 0.5 × the share of the query's adjacent
 *   token pairs that occur; 0 for one-token queries.
 * - semantic = max(0, cosine(embedText(query), embedText(passage))).
 *
 * score = Σ weight · signal with `weights` (default relevanceWeights), in
 * [0, 1] when the weights sum to 1. A passage without words scores 0. Time
 * is linear in the total length of the query and the passages.
 */
export function scoreRelevance(
  query: string,
  passages: readonly string[],
  vectors: WordVectors,
  weights: RelevanceWeights = relevanceWeights,
): RelevanceBreakdown[] {
  const corpus = analyseCorpus(query, passages);
  const queryVector = embedText(query, vectors);

  return corpus.passageStems.map((stems, passageIndex): RelevanceBreakdown => {
    if (stems.length === 0 || corpus.terms.length === 0)
      return { bm25: 0, proximity: 0, phrase: 0, semantic: 0, score: 0 };
    const positions = termPositions(corpus, stems);
    const matched = [...positions.keys()].sort((left, right) => left - right);
    const bm25 = bm25Score(corpus, stems, positions, matched);
    const proximity = proximityScore(corpus, positions, matched);
    const phrase = phraseScore(corpus, stems);
    const semantic = Math.max(0, cosineSimilarity(queryVector, embedText(passages[passageIndex] as string, vectors)));
    const score =
      weights.bm25 * bm25 + weights.proximity * proximity + weights.phrase * phrase + weights.semantic * semantic;
    return { bm25, proximity, phrase, semantic, score };
  });
}

/** What scoring needs of the query and of one call's passages as a whole. */
interface RelevanceCorpus {
  /** The query's distinct terms; a term's index stands for it below. */
  terms: string[];
  termIndex: Map<string, number>;
  /** How many times the query names each term. */
  queryFrequency: number[];
  /** Every query token, stemmed, stopwords included (for phrases). */
  queryStems: string[];
  /** Every passage's tokens, stemmed. */
  passageStems: string[][];
  idf: number[];
  averageLength: number;
  /** BM25's value as every term's frequency grows without bound, which scales it into [0, 1). */
  bm25Ceiling: number;
  /** The query's adjacent token pairs, with their repeats. */
  queryBigramCounts: Map<string, number>;
  queryBigrams: number;
}

/** The query's terms and the passages' statistics (document frequencies, average length) of this call alone. */
function analyseCorpus(query: string, passages: readonly string[]): RelevanceCorpus {
  const queryTokens = tokenize(query);
  const queryStems = queryTokens.map(toStem);
  let queryTerms = queryTokens.filter((token) => !isStopword(token)).map(toStem);
  if (queryTerms.length === 0) queryTerms = queryStems;
  const terms = [...new Set(queryTerms)];
  const termIndex = new Map(terms.map((term, index) => [term, index]));
  // A query that names a term twice asks for it twice, as in BM25 over the whole query.
  const queryFrequency = new Array<number>(terms.length).fill(0);
  for (const term of queryTerms) queryFrequency[termIndex.get(term) as number]! += 1;
  const passageStems = passages.map((passage) => tokenize(passage).map(toStem));

  // Every count below walks each passage's own stems once, never the query's terms per passage,
  // so a long query and many long passages cost their total length.
  const count = passages.length;
  const documentFrequency = new Array<number>(terms.length).fill(0);
  let totalLength = 0;
  for (const stems of passageStems) {
    totalLength += stems.length;
    for (const stem of new Set(stems)) {
      const index = termIndex.get(stem);
      if (index !== undefined) documentFrequency[index]! += 1;
    }
  }
  const averageLength = count === 0 ? 0 : totalLength / count;
  const idf = documentFrequency.map((frequency) => Math.log(1 + (count - frequency + 0.5) / (frequency + 0.5)));
  const { k1 } = passageBm25;
  const bm25Ceiling = idf.reduce((sum, value, index) => sum + (queryFrequency[index] as number) * value * (k1 + 1), 0);
  const queryBigramCounts = new Map<string, number>();
  for (let index = 1; index < queryStems.length; index++) {
    const bigram = `${queryStems[index - 1]} ${queryStems[index]}`;
    queryBigramCounts.set(bigram, (queryBigramCounts.get(bigram) ?? 0) + 1);
  }
  const queryBigrams = queryStems.length - 1;
  return {
    terms,
    termIndex,
    queryFrequency,
    queryStems,
    passageStems,
    idf,
    averageLength,
    bm25Ceiling,
    queryBigramCounts,
    queryBigrams,
  };
}

/** The positions in `stems` of each query term the passage holds, by term index. */
function termPositions(corpus: RelevanceCorpus, stems: readonly string[]): Map<number, number[]> {
  const positions = new Map<number, number[]>();
  stems.forEach((stem, position) => {
    const index = corpus.termIndex.get(stem);
    if (index === undefined) return;
    const found = positions.get(index);
    if (found === undefined) positions.set(index, [position]);
    else found.push(position);
  });
  return positions;
}

/** The passage's BM25 over the query's terms, divided by its ceiling. */
function bm25Score(
  corpus: RelevanceCorpus,
  stems: readonly string[],
  positions: Map<number, number[]>,
  matched: readonly number[],
): number {
  const { queryFrequency, idf, averageLength, bm25Ceiling } = corpus;
  const { k1, b } = passageBm25;
  const lengthNorm = k1 * (1 - b + (b * stems.length) / averageLength);
  let bm25 = 0;
  for (const index of matched) {
    const frequency = (positions.get(index) as number[]).length;
    bm25 +=
      ((queryFrequency[index] as number) * (idf[index] as number) * frequency * (k1 + 1)) / (frequency + lengthNorm);
  }
  if (bm25Ceiling > 0) bm25 /= bm25Ceiling;
  return bm25;
}

/** How close together the matched terms sit: 1 when all of them are side by side. */
function proximityScore(corpus: RelevanceCorpus, positions: Map<number, number[]>, matched: readonly number[]): number {
  const { terms } = corpus;
  let proximity = 0;
  if (terms.length === 1) proximity = matched.length;
  else if (matched.length >= 2) {
    const window = smallestCoveringWindow(matched.map((index) => positions.get(index) as number[]));
    proximity = (matched.length / terms.length) * ((matched.length - 1) / (window - 1));
  }
  return proximity;
}

/** 1 when the query occurs verbatim in the passage, else half the share of its adjacent pairs that do. */
function phraseScore(corpus: RelevanceCorpus, stems: readonly string[]): number {
  const { queryStems, queryBigramCounts, queryBigrams } = corpus;
  let phrase = 0;
  if (queryStems.length >= 2) {
    if (containsSequence(stems, queryStems)) phrase = 1;
    else {
      // Each of the query's adjacent pairs (repeats counted) that the passage holds anywhere.
      let shared = 0;
      const seen = new Set<string>();
      for (let index = 1; index < stems.length; index++) {
        const bigram = `${stems[index - 1]} ${stems[index]}`;
        if (seen.has(bigram)) continue;
        seen.add(bigram);
        shared += queryBigramCounts.get(bigram) ?? 0;
      }
      phrase = (0.5 * shared) / queryBigrams;
    }
  }
  return phrase;
}
