export { tokenize, splitIdentifier, isStopword, toStem, type TokenizeOptions } from "./tokenizer.js";
export { splitSentences, type TextSegment } from "./sentences.js";
export { parseOutline, slugify, toProseBlocks, type OutlineSection } from "./markdown.js";
export { stripInlineMarkdown } from "./markdown-inline.js";
export { chunkText, defaultChunkOptions, type ChunkOptions, type TextChunk } from "./chunker.js";
export { embeddingSifSmoothing, sifSmoothing, toSifWeight, toWordProbability } from "./word-weights.js";
export type { WordVectors, WordVectorOrigin } from "./word-vectors.js";
export {
  createWordVectorHandle,
  defaultWordVectorSource,
  loadWordVectors,
  openWordVectors,
  toWordVectorCachePath,
  wordVectorModel,
  type OpenWordVectorsOptions,
  type WordVectorHandle,
} from "./word-vector-cache.js";
export { cosineSimilarity, embedText, toHashedWordVector, type EmbedTextOptions } from "./embedding.js";
export { toDefaultCacheDir } from "./cache-dir.js";
export { fnv1a } from "./hashing.js";
export {
  answerExtractively,
  extractiveAnswerModel,
  extractiveStatementChars,
  type AnswerCitation,
  type AnswerStatement,
  type DraftAnswer,
} from "./extractive-answer.js";
