import { addSeededRandom, fnv1a } from "./hashing.js";
import { isStopword, splitIdentifier, tokenize, toStem } from "./tokenizer.js";
import type { WordVectors } from "./word-vectors.js";
import { embeddingSifSmoothing, toSifWeight, toWordProbability } from "./word-weights.js";

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
 * A different `seed` gives an independent family of vectors (the n-grams
 * hash differently), for a second, unrelated use of the same words.
 */
export function toHashedWordVector(word: string, dimension: number, seed?: number): Float32Array {
  const padded = `<${word.toLowerCase().slice(0, maxHashedChars)}>`;
  const sum = new Float64Array(dimension);
  const addGram = (gram: string) => addSeededRandom(sum, fnv1a(gram, seed));
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

const termCacheLimit = 50_000;
// Per word vectors, then per number of lexical dimensions (each layout weighs the same term differently).
const termCaches = new WeakMap<WordVectors, Map<number, Map<string, Float32Array>>>();

/** How `embedText` lays out a text's vector. */
export interface EmbedTextOptions {
  /**
   * Dimensions appended after the word vectors' own that hold each term's
   * exact form (the hashed n-gram vector of its stem) apart from its
   * meaning. 0 (the default, `builtin-glove-100d-v2`) adds the exact form
   * into the word-vector dimensions instead, where unrelated words' hashed
   * vectors blur into the meaning; kept apart, two texts share lexical
   * weight only through shared stems. Output length: the word vectors'
   * dimension plus this.
   */
  lexicalDimensions?: number;
}

function termCacheOf(vectors: WordVectors, lexicalDimensions: number): Map<string, Float32Array> {
  let byLayout = termCaches.get(vectors);
  if (byLayout === undefined) {
    byLayout = new Map();
    termCaches.set(vectors, byLayout);
  }
  let cache = byLayout.get(lexicalDimensions);
  if (cache === undefined) {
    cache = new Map();
    byLayout.set(lexicalDimensions, cache);
  }
  return cache;
}

/**
 * How much a term's exact form counts beside its meaning: each term adds the
 * hashed n-gram vector of its stem (`toStem(term)`, hashed with
 * `lexicalSeed`), at this many times a typical word's length, to its GloVe
 * vector. It lets a text sharing a query's rare words rank above one that is
 * only about the same subject, which word-vector averages alone blur. Chosen
 * on Cranfield (semantic nDCG@10 0.201 without it, 0.221 at 0.75, 0.232 at 1,
 * 0.242 at 1.5, 0.235 at 2, 0.237 at 3) and again for v3's 156 lexical
 * dimensions (0.273 at 1, 0.287 at 1.5, 0.286 at 2, 0.283 at 3);
 * docs/embedder.md has the figures on both collections.
 */
const lexicalShare = 1.5;
// FNV-1a's offset basis with the low byte changed: the stems' n-grams hash independently of the spelling vectors'.
const lexicalSeed = 0x811c9d5c;

/**
 * The weighted vector one term adds to a text's sum, cached per vectors and layout.
 *
 * A vocabulary word of rank r: w(r) · (v − mean + lexicalShare · |v| · h),
 * with w the SIF weight at `embeddingSifSmoothing`, |v| the typical centred
 * word length and h the unit hashed n-gram vector of its stem. Any other
 * term (not in the vocabulary: a name, an identifier, a number) weighs 1, as
 * the rarest words do: |v| · (s + lexicalShare · h), with s its own hashed
 * n-gram vector, so spelling variants land close. With `lexicalDimensions`
 * > 0, h has that many dimensions and fills the ones after v's instead of
 * being added to v.
 */
function toTermVector(term: string, vectors: WordVectors, lexicalDimensions: number): Float32Array {
  const cache = termCacheOf(vectors, lexicalDimensions);
  const cached = cache.get(term);
  if (cached !== undefined) return cached;

  const { dimension, matrix, mean, typicalNorm, size } = vectors;
  const lexical = toHashedWordVector(toStem(term), lexicalDimensions > 0 ? lexicalDimensions : dimension, lexicalSeed);
  const result = new Float32Array(dimension + lexicalDimensions);
  const row = vectors.indexOf(term);
  // Where the exact form shares the word-vector dimensions (v2) it is added inside the same expression, so v2's vectors stay bit for bit.
  const shared = lexicalDimensions === 0 ? lexicalShare * typicalNorm : 0;
  let weight = 1;
  if (row >= 0) {
    weight = toSifWeight(toWordProbability(row, size), embeddingSifSmoothing);
    const offset = row * dimension;
    for (let d = 0; d < dimension; d++)
      result[d] = weight * ((matrix[offset + d] as number) - (mean[d] as number) + shared * (lexical[d] as number));
  } else {
    const spelling = toHashedWordVector(term, dimension);
    for (let d = 0; d < dimension; d++)
      result[d] =
        typicalNorm * ((spelling[d] as number) + (lexicalDimensions === 0 ? lexicalShare * (lexical[d] as number) : 0));
  }
  for (let d = 0; d < lexicalDimensions; d++)
    result[dimension + d] = weight * lexicalShare * typicalNorm * (lexical[d] as number);
  if (cache.size >= termCacheLimit) cache.clear();
  cache.set(term, result);
  return result;
}

const numeral = /^[\p{N}.,]+$/u;

/** Whether a lowercase term carries little meaning of its own: a stop word, a number or a single character. */
function isMinorTerm(term: string): boolean {
  return isStopword(term) || numeral.test(term) || term.length === 1;
}

/**
 * Calls `visit` with each lowercase term of a token and whether it is minor
 * (see `isMinorTerm`). A vocabulary word, or a token that does not split, is
 * one term; any other token is its identifier parts (`boundary-layer` →
 * boundary, layer; `getUserName` → get, user, name; `library's` → library),
 * so a compound meets the same words written apart, and an identifier meets
 * its other spellings.
 */
function visitTerms(token: string, vectors: WordVectors, visit: (term: string, minor: boolean) => void): void {
  const lower = token.toLowerCase();
  if (vectors.indexOf(lower) >= 0) return visit(lower, isMinorTerm(lower));
  const parts = splitIdentifier(token);
  if (parts.length < 2) return visit(lower, isMinorTerm(lower));
  for (const part of parts) if (part !== "s") visit(part, isMinorTerm(part));
}

/**
 * Embeds a text as one unit vector: SIF (Arora, Liang & Ma, "A Simple but
 * Tough-to-Beat Baseline for Sentence Embeddings") over GloVe 100-d, with
 * each term's exact form mixed in (`builtin-glove-100d-v2`) or, with
 * `options.lexicalDimensions`, in dimensions of its own after the word
 * vectors' (`builtin-glove-256d-v3`).
 *
 * Method: tokenize and split tokens outside the vocabulary into their
 * identifier parts (see `visitTerms`); sum the vectors of the terms that
 * carry meaning (see `toTermVector`: GloVe vector minus the corpus mean,
 * weighted by rarity, plus a hashed vector of the stem), leaving out stop
 * words, numbers and single characters; remove the sum's projection on the
 * corpus's first principal direction (the component every average shares)
 * and normalise. A text made only of minor terms (`the of and`, `404`) is
 * embedded from those, so it still has its own direction.
 *
 * Contract: deterministic (same text, vectors and options → same vector),
 * length `vectors.dimension + lexicalDimensions`, unit norm, never NaN, linear in the text's length.
 * Queries and documents use this same function. A text with no word tokens
 * gets one fixed unit vector.
 */
export function embedText(text: string, vectors: WordVectors, options: EmbedTextOptions = {}): Float32Array {
  const lexicalDimensions = options.lexicalDimensions ?? 0;
  if (!Number.isInteger(lexicalDimensions) || lexicalDimensions < 0)
    throw new RangeError(`lexicalDimensions must be a non-negative integer, got ${lexicalDimensions}`);
  const { dimension: wordDimension, commonDirection } = vectors;
  const dimension = wordDimension + lexicalDimensions;
  const sum = new Float64Array(dimension);
  const addTerm = (term: string) => {
    const vector = toTermVector(term, vectors, lexicalDimensions);
    for (let d = 0; d < dimension; d++) sum[d] = (sum[d] as number) + (vector[d] as number);
  };
  // Minor terms count only in a text that has nothing else, so they are kept aside and embedded only then:
  // a text of numbered headings (`## Heading 12345`) does not pay for a hashed vector per distinct number.
  let contentTerms = 0;
  const minorTerms: string[] = [];
  const visit = (term: string, isMinor: boolean) => {
    if (!isMinor) {
      contentTerms++;
      addTerm(term);
    } else if (contentTerms === 0) minorTerms.push(term);
  };
  for (const token of tokenize(text, { preserveCase: true })) visitTerms(token, vectors, visit);
  if (contentTerms === 0) {
    if (minorTerms.length === 0) return emptyTextVector(dimension);
    for (const term of minorTerms) addTerm(term);
  }
  // The common direction lives in the word-vector dimensions; the lexical ones have none.
  let projection = 0;
  for (let d = 0; d < wordDimension; d++) projection += (sum[d] as number) * (commonDirection[d] as number);
  for (let d = 0; d < wordDimension; d++) sum[d] = (sum[d] as number) - projection * (commonDirection[d] as number);
  return normalised(sum) ?? emptyTextVector(dimension);
}
