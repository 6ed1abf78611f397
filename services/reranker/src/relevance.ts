import { cosineSimilarity, embedText, isStopword, tokenize, toStem, type WordVectors } from "@context-hub/text";

/** How much each signal counts; they sum to 1, so scores lie in [0, 1]. */
export const relevanceWeights = Object.freeze({ coverage: 0.4, proximity: 0.15, phrase: 0.15, semantic: 0.3 });

/** The parts of one passage's score, each in [0, 1]. */
export interface RelevanceBreakdown {
  coverage: number;
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

function containsSequence(tokens: string[], sequence: string[]): boolean {
  outer: for (let start = 0; start + sequence.length <= tokens.length; start++) {
    for (let offset = 0; offset < sequence.length; offset++) if (tokens[start + offset] !== sequence[offset]) continue outer;
    return true;
  }
  return false;
}

/**
 * Scores passages against a query, deterministically, with four signals:
 *
 * - coverage = Σ idf(t) over query terms t found in the passage / Σ idf(t)
 *   over all query terms. Terms are the query's light-stemmed tokens minus
 *   stopwords (all tokens if only stopwords remain); idf is computed within
 *   the candidate set, idf(t) = ln(1 + (N − df + 0.5) / (df + 0.5)), so a
 *   term every passage has counts for little and a rare one for a lot.
 * - proximity = (m / |terms|) · (m − 1) / (w − 1), where m ≥ 2 matched terms
 *   fit in a smallest window of w tokens: 1 when all terms sit side by side.
 *   With a one-term query it is 1 when the term occurs; otherwise 0.
 * - phrase = 1 when the query's token sequence occurs verbatim (after
 *   stemming) in the passage, else 0.5 × the share of the query's adjacent
 *   token pairs that occur; 0 for one-token queries.
 * - semantic = max(0, cosine(embedText(query), embedText(passage))).
 *
 * score = 0.4·coverage + 0.15·proximity + 0.15·phrase + 0.3·semantic, in [0, 1].
 * A passage without words scores 0.
 */
export function scoreRelevance(query: string, passages: readonly string[], vectors: WordVectors): RelevanceBreakdown[] {
  const queryTokens = tokenize(query);
  const queryStems = queryTokens.map(toStem);
  let terms = [...new Set(queryTokens.filter((token) => !isStopword(token)).map(toStem))];
  if (terms.length === 0) terms = [...new Set(queryStems)];
  const passageStems = passages.map((passage) => tokenize(passage).map(toStem));

  const count = passages.length;
  const idf = terms.map((term) => {
    const documentFrequency = passageStems.reduce((sum, stems) => sum + (stems.includes(term) ? 1 : 0), 0);
    return Math.log(1 + (count - documentFrequency + 0.5) / (documentFrequency + 0.5));
  });
  const totalIdf = idf.reduce((sum, value) => sum + value, 0);
  const queryBigrams = queryStems.slice(1).map((stem, index) => `${queryStems[index]} ${stem}`);
  const queryVector = embedText(query, vectors);

  return passageStems.map((stems, passageIndex): RelevanceBreakdown => {
    if (stems.length === 0 || terms.length === 0) return { coverage: 0, proximity: 0, phrase: 0, semantic: 0, score: 0 };
    const termIndex = new Map(terms.map((term, index) => [term, index]));
    const positions: number[][] = terms.map(() => []);
    stems.forEach((stem, position) => {
      const index = termIndex.get(stem);
      if (index !== undefined) (positions[index] as number[]).push(position);
    });
    const matched = positions.flatMap((found, index) => (found.length > 0 ? [index] : []));
    const coverage = totalIdf === 0 ? 0 : matched.reduce((sum, index) => sum + (idf[index] as number), 0) / totalIdf;

    let proximity = 0;
    if (terms.length === 1) proximity = matched.length;
    else if (matched.length >= 2) {
      const window = smallestCoveringWindow(matched.map((index) => positions[index] as number[]));
      proximity = (matched.length / terms.length) * ((matched.length - 1) / (window - 1));
    }

    let phrase = 0;
    if (queryStems.length >= 2) {
      if (containsSequence(stems, queryStems)) phrase = 1;
      else {
        const passageBigrams = new Set(stems.slice(1).map((stem, index) => `${stems[index]} ${stem}`));
        phrase = (0.5 * queryBigrams.filter((bigram) => passageBigrams.has(bigram)).length) / queryBigrams.length;
      }
    }

    const semantic = Math.max(0, cosineSimilarity(queryVector, embedText(passages[passageIndex] as string, vectors)));
    const score = relevanceWeights.coverage * coverage + relevanceWeights.proximity * proximity + relevanceWeights.phrase * phrase + relevanceWeights.semantic * semantic;
    return { coverage, proximity, phrase, semantic, score };
  });
}
