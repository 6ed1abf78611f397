/**
 * SIF smoothing constant `a` (Arora, Liang & Ma, 2017) of the corpus
 * statistics (the mean and common direction `WordVectors` precomputes): a
 * word of corpus probability p weighs a / (a + p). At 1e-3, "the" weighs
 * about 0.01, a word of rank 100 about 0.6 and one of rank 1000 about 0.9.
 */
export const sifSmoothing = 1e-3;

/**
 * SIF smoothing constant `a` of the word weights inside a text embedding
 * (`embedText`). Ten times smaller than `sifSmoothing`, so weight keeps
 * growing with rarity deep into the vocabulary (rank 1000 weighs about 0.57,
 * rank 10,000 about 0.93) and a text's rare, specific words outweigh its
 * common ones. Chosen on Cranfield (docs/embedder.md has the figures).
 */
export const embeddingSifSmoothing = 1e-4;

/**
 * Estimated corpus probability of the word of frequency rank `rank` (0-based)
 * in a vocabulary of `size` words, by Zipf's law: p(r) = 1 / ((r + 1) · H(size)),
 * with the harmonic number H approximated by ln(size) + γ.
 */
export function toWordProbability(rank: number, size: number): number {
  return 1 / ((rank + 1) * (Math.log(size) + 0.5772156649));
}

/** The SIF weight a / (a + p) of a word of probability p; 1 for unseen words (p = 0). `a` defaults to `sifSmoothing`. */
export function toSifWeight(probability: number, smoothing = sifSmoothing): number {
  return smoothing / (smoothing + probability);
}
