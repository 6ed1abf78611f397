import { addSeededRandom, fnv1a } from "./hashing.js";
import { splitIdentifier, tokenize } from "./tokenizer.js";
import type { WordVectors } from "./word-vectors.js";
import { sifSmoothing } from "./word-weights.js";

const minGram = 3;
const maxGram = 5;
// Long tokens (hashes, base64) gain nothing from more n-grams; this bounds the cost per token.
const maxHashedChars = 48;

/**
 * A deterministic unit vector for any word, built fastText-style from its
 * character n-grams: the word is padded as `<word>`, every 3-, 4- and
 * 5-gram (and the whole padded word) seeds a pseudo-random vector, and the
 * sum is normalised. Words sharing most n-grams (typos, inflections,
 * `user_id` / `user_ids`) get high cosine; unrelated words get cosine near 0.
 */
export function toHashedWordVector(word: string, dimension: number): Float32Array {
  const padded = `<${word.toLowerCase().slice(0, maxHashedChars)}>`;
  const sum = new Float64Array(dimension);
  const addGram = (gram: string) => addSeededRandom(sum, fnv1a(gram));
  for (let n = minGram; n <= maxGram; n++) {
    for (let start = 0; start + n <= padded.length; start++) addGram(padded.slice(start, start + n));
  }
  if (padded.length > maxGram || padded.length < minGram) addGram(padded);
  return normalised(sum) ?? emptyTextVector(dimension);
}

/** Cosine similarity of two equal-length vectors; 0 when either is all zeros. */
export function cosineSimilarity(left: ArrayLike<number>, right: ArrayLike<number>): number {
  let dot = 0;
  let leftSquares = 0;
  let rightSquares = 0;
  for (let d = 0; d < left.length; d++) {
    const a = left[d] as number;
    const b = right[d] as number;
    dot += a * b;
    leftSquares += a * a;
    rightSquares += b * b;
  }
  return leftSquares === 0 || rightSquares === 0 ? 0 : dot / Math.sqrt(leftSquares * rightSquares);
}

const emptyVectors = new Map<number, Float32Array>();

/** The embedding of a text without words: a fixed unit vector, the same for every empty text. */
function emptyTextVector(dimension: number): Float32Array {
  let vector = emptyVectors.get(dimension);
  if (vector === undefined) {
    const random = new Float64Array(dimension);
    addSeededRandom(random, fnv1a("\u0000context-hub:empty-text"));
    vector = normalised(random) as Float32Array;
    emptyVectors.set(dimension, vector);
  }
  return Float32Array.from(vector);
}

function normalised(vector: ArrayLike<number>): Float32Array | undefined {
  let squares = 0;
  for (let d = 0; d < vector.length; d++) squares += (vector[d] as number) ** 2;
  const norm = Math.sqrt(squares);
  if (!(norm > 0) || !Number.isFinite(norm)) return undefined;
  const result = new Float32Array(vector.length);
  for (let d = 0; d < vector.length; d++) result[d] = (vector[d] as number) / norm;
  return result;
}

const unknownCacheLimit = 50_000;
const unknownCaches = new WeakMap<WordVectors, Map<string, Float32Array>>();

/**
 * The centred-space vector of a token missing from the vocabulary, with the
 * length of a typical word: its hashed n-gram vector, blended half and half
 * with the SIF average of its identifier parts when it has several
 * (`getUserName` → get, user, name), so identifiers land both near their
 * spelling variants and near the meaning of their parts.
 */
function toUnknownTokenVector(token: string, vectors: WordVectors, logProbabilityBase: number): Float32Array {
  let cache = unknownCaches.get(vectors);
  if (cache === undefined) {
    cache = new Map();
    unknownCaches.set(vectors, cache);
  }
  const cached = cache.get(token);
  if (cached !== undefined) return cached;

  const { dimension, matrix, mean, typicalNorm } = vectors;
  const hashed = toHashedWordVector(token, dimension);
  let result: Float32Array = hashed;
  const parts = splitIdentifier(token);
  if (parts.length >= 2) {
    const sum = new Float64Array(dimension);
    for (const part of parts) {
      const row = vectors.indexOf(part);
      if (row >= 0) {
        const weight = sifSmoothing / (sifSmoothing + 1 / ((row + 1) * logProbabilityBase));
        for (let d = 0; d < dimension; d++) sum[d] = (sum[d] as number) + (weight * ((matrix[row * dimension + d] as number) - (mean[d] as number))) / typicalNorm;
      } else {
        const partVector = toHashedWordVector(part, dimension);
        for (let d = 0; d < dimension; d++) sum[d] = (sum[d] as number) + (partVector[d] as number);
      }
    }
    const partsVector = normalised(sum);
    if (partsVector !== undefined) {
      for (let d = 0; d < dimension; d++) sum[d] = (hashed[d] as number) + (partsVector[d] as number);
      result = normalised(sum) ?? hashed;
    }
  }
  for (let d = 0; d < dimension; d++) result[d] = (result[d] as number) * typicalNorm;
  if (cache.size >= unknownCacheLimit) cache.clear();
  cache.set(token, result);
  return result;
}

/**
 * Embeds a text as one unit vector in the word-vector space (SIF: Arora,
 * Liang & Ma, "A Simple but Tough-to-Beat Baseline for Sentence Embeddings").
 *
 * Method: tokenize; each known word contributes its vector minus the corpus
 * mean, weighted a / (a + p(w)) with a = 1e-3 and p(w) estimated from its
 * frequency rank by Zipf's law, so function words barely count; each unknown
 * token contributes, with weight 1 (p ≈ 0), a deterministic vector from
 * hashed character n-grams (blended with its identifier parts), scaled to a
 * typical word's length. The sum has its projection on the corpus's first
 * principal direction removed (the common component every average shares)
 * and is normalised to length 1.
 *
 * Contract: deterministic (same text and vectors → same vector), length
 * `vectors.dimension`, unit norm, never NaN. A text with no word tokens gets
 * one fixed unit vector.
 */
export function embedText(text: string, vectors: WordVectors): Float32Array {
  const { dimension, matrix, mean, commonDirection } = vectors;
  const logProbabilityBase = Math.log(vectors.size) + 0.5772156649;
  const sum = new Float64Array(dimension);
  let words = 0;
  for (const token of tokenize(text, { preserveCase: true })) {
    const row = vectors.indexOf(token.toLowerCase());
    if (row >= 0) {
      const weight = sifSmoothing / (sifSmoothing + 1 / ((row + 1) * logProbabilityBase));
      const offset = row * dimension;
      for (let d = 0; d < dimension; d++) sum[d] = (sum[d] as number) + weight * ((matrix[offset + d] as number) - (mean[d] as number));
    } else {
      const vector = toUnknownTokenVector(token, vectors, logProbabilityBase);
      for (let d = 0; d < dimension; d++) sum[d] = (sum[d] as number) + (vector[d] as number);
    }
    words++;
  }
  if (words === 0) return emptyTextVector(dimension);
  let projection = 0;
  for (let d = 0; d < dimension; d++) projection += (sum[d] as number) * (commonDirection[d] as number);
  for (let d = 0; d < dimension; d++) sum[d] = (sum[d] as number) - projection * (commonDirection[d] as number);
  return normalised(sum) ?? emptyTextVector(dimension);
}
