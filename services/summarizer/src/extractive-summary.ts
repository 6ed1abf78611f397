import { isStopword, splitSentences, tokenize, toProseBlocks, toStem } from "@context-hub/text";
import type { TextSource } from "./summary-provider.js";

export interface ExtractiveOptions {
  source: TextSource;
  /** Stop adding sentences once the summary reaches this many words… */
  targetWords: number;
  /** …never go beyond this many (a single longer sentence is cut at a word, with "…"). */
  maxWords: number;
  /** And never take more than this many sentences. */
  maxSentences: number;
  /** Terms (e.g. a section heading) whose presence makes a sentence more representative. */
  focus?: string;
}

interface Candidate {
  index: number;
  text: string;
  words: number;
  weights: Map<string, number>;
  norm: number;
  score: number;
}

// Sentences stating what the user wants or forbids.
const userCues =
  /\b(?:must|should|shall|needs?|needed|require[sd]?|requirements?|don['’]?t|do not|never|always|avoid|ensure|make sure|please|want(?:s|ed)?|prefer(?:s|red)?|only|goals?|expect(?:s|ed)?|constraints?|deadline|important|cannot|can['’]?t|no more than|at least|at most)\b/gi;
// Sentences stating what an agent found, decided or concluded.
const agentCues =
  /\b(?:found|findings?|decided|decisions?|because|results?|resulted|conclu(?:de|ded|sions?)|therefore|root cause|caused|fixed|confirmed|verified|implemented|chose|chosen|recommend(?:s|ed|ations?)?|failed|fails|turns? out|discovered|shows?|showed|measured|so that|instead|dropped|reduced|improved|increased|faster|slower)\b/gi;

function countMatches(pattern: RegExp, text: string): number {
  pattern.lastIndex = 0;
  let count = 0;
  while (pattern.exec(text) !== null) count++;
  return count;
}

function toCueScore(sentence: AnalysedSentence, source: TextSource): number {
  const user = Math.min(1, sentence.userCues / 2);
  const agent = Math.min(1, sentence.agentCues / 2);
  if (source === "user") return user;
  if (source === "agent") return agent;
  return (user + agent) / 2;
}

function toContentStems(text: string): string[] {
  return tokenize(text)
    .filter((token) => token.length > 1 && !isStopword(token))
    .map(toStem);
}

function countWords(text: string): number {
  return text.split(/\s+/).filter((word) => word !== "").length;
}

/** What scoring needs of one prose sentence, whatever the source and focus. */
interface AnalysedSentence {
  text: string;
  words: number;
  stems: string[];
  userCues: number;
  agentCues: number;
}

/** The prose sentences of a text, analysed: the part of the work that depends on the text alone. */
function analyse(text: string): readonly AnalysedSentence[] {
  return toProseBlocks(text).flatMap((block) =>
    splitSentences(block.text).map(({ text: sentence }) => ({
      text: sentence,
      words: countWords(sentence),
      stems: toContentStems(sentence),
      userCues: countMatches(userCues, sentence),
      agentCues: countMatches(agentCues, sentence),
    })),
  );
}

/** Texts up to this long keep their analysis for the next summary of the same text. */
const rememberedTextChars = 64 * 1024;
/** How many analyses are kept, least recently used dropped first. */
const rememberedTexts = 64;
const analyses = new Map<string, readonly AnalysedSentence[]>();

/**
 * `analyse`, remembered for recent texts. A write asks for its text's summary
 * and its sections' summaries at once, and a document under one top heading
 * has a section that is the whole text, so the same text is analysed twice
 * otherwise. The analysis is pure and never changed after it is made.
 */
function analyseRemembered(text: string): readonly AnalysedSentence[] {
  if (text.length > rememberedTextChars) return analyse(text);
  const known = analyses.get(text);
  if (known !== undefined) {
    analyses.delete(text);
    analyses.set(text, known);
    return known;
  }
  const analysed = analyse(text);
  analyses.set(text, analysed);
  if (analyses.size > rememberedTexts) analyses.delete(analyses.keys().next().value as string);
  return analysed;
}

function cosine(left: Candidate, right: Candidate): number {
  if (left.norm === 0 || right.norm === 0) return 0;
  let dot = 0;
  for (const [stem, weight] of left.weights) dot += weight * (right.weights.get(stem) ?? 0);
  return dot / (left.norm * right.norm);
}

/**
 * Scores every prose sentence of a Markdown text. Score =
 * 0.45·content + 0.25·cue + 0.15·position + 0.15·focus, times a length factor:
 * - content: cosine between the sentence's TF-IDF vector and the text's
 *   centroid (sentences as documents, light stems, stopwords dropped), i.e.
 *   how much of what the text is mostly about the sentence carries;
 * - cue: intent/constraint words for user texts, finding/decision words for
 *   agent texts (both, halved, when the source is unspecified), saturating at two;
 * - position: 1 for the first sentence falling linearly to 0 for the last,
 *   because both prompts and reports tend to lead with the point;
 * - focus: the share of `focus` terms (a section heading) the sentence holds;
 * - length factor: ×0.5 below four words (fragments), ×0.85 above fifty.
 */
function toCandidates(text: string, source: TextSource, focus: string | undefined): Candidate[] {
  const sentences = analyseRemembered(text);
  const documentFrequency = new Map<string, number>();
  for (const sentence of sentences)
    for (const stem of new Set(sentence.stems)) documentFrequency.set(stem, (documentFrequency.get(stem) ?? 0) + 1);
  const count = sentences.length;
  const centroid = new Map<string, number>();
  const candidates = sentences.map((sentence, index): Candidate => {
    const weights = new Map<string, number>();
    for (const stem of sentence.stems) {
      const idf = Math.log(1 + count / (documentFrequency.get(stem) as number));
      weights.set(stem, (weights.get(stem) ?? 0) + idf);
    }
    let squares = 0;
    for (const [stem, weight] of weights) {
      squares += weight * weight;
      centroid.set(stem, (centroid.get(stem) ?? 0) + weight);
    }
    return { index, text: sentence.text, words: sentence.words, weights, norm: Math.sqrt(squares), score: 0 };
  });
  const centre: Candidate = {
    index: -1,
    text: "",
    words: 0,
    weights: centroid,
    norm: Math.sqrt([...centroid.values()].reduce((sum, weight) => sum + weight * weight, 0)),
    score: 0,
  };
  const focusStems = new Set(focus === undefined ? [] : toContentStems(focus));
  for (const candidate of candidates) {
    const content = cosine(candidate, centre);
    const cue = toCueScore(sentences[candidate.index] as AnalysedSentence, source);
    const position = count <= 1 ? 1 : 1 - candidate.index / (count - 1);
    // Counted over the sentence's own stems: a heading can be as long as the text, and every sentence is scored against it.
    let focusHits = 0;
    if (focusStems.size > 0) for (const stem of candidate.weights.keys()) if (focusStems.has(stem)) focusHits++;
    const focused = focusStems.size === 0 ? 0 : focusHits / focusStems.size;
    const lengthFactor = candidate.words < 4 ? 0.5 : candidate.words > 50 ? 0.85 : 1;
    candidate.score = (0.45 * content + 0.25 * cue + 0.15 * position + 0.15 * focused) * lengthFactor;
  }
  return candidates;
}

function withFullStop(sentence: string): string {
  return /[.!?…:;]["'”’)\]]*$/.test(sentence) ? sentence : `${sentence}.`;
}

/**
 * `text` without the punctuation that ends it. A scan back from the end: the
 * pattern `/[,;:.!?]+$/` would try every punctuation mark of a long run in
 * the middle of the text as a start and scan the rest of that run from each
 * (quadratic: a first word of 76,000 dots took over 30 s).
 */
function trimTrailingPunctuation(text: string): string {
  let end = text.length;
  while (end > 0 && ",;:.!?".includes(text.charAt(end - 1))) end--;
  return text.slice(0, end);
}

function truncateWords(sentence: string, maxWords: number): string {
  const words = sentence.split(/\s+/).filter((word) => word !== "");
  return words.length <= maxWords ? sentence : `${trimTrailingPunctuation(words.slice(0, maxWords).join(" "))}…`;
}

// Above this TF-IDF cosine a sentence mostly repeats one already chosen.
const redundancy = 0.7;

/**
 * An extractive summary of a Markdown text: its best-scoring prose sentences
 * (code, tables and heading lines never qualify), chosen best first while
 * skipping near-repeats, until `targetWords` is reached (or half the text's
 * words, if less) without passing `maxWords` or `maxSentences`; then put
 * back in their original order, Markdown syntax removed, each ending in
 * punctuation, joined by spaces. Sentences are never cut, except a single
 * first choice longer than `maxWords`. "" when the text has no prose.
 * Deterministic.
 */
export function summarizeExtractive(text: string, options: ExtractiveOptions): string {
  const candidates = toCandidates(text, options.source, options.focus);
  if (candidates.length === 0) return "";
  const totalWords = candidates.reduce((sum, candidate) => sum + candidate.words, 0);
  const target = Math.min(options.targetWords, Math.ceil(totalWords / 2));
  const ranked = [...candidates].sort((left, right) => right.score - left.score || left.index - right.index);
  const chosen: Candidate[] = [];
  let words = 0;
  for (const candidate of ranked) {
    if (words >= target || chosen.length >= options.maxSentences) break;
    if (chosen.some((other) => cosine(candidate, other) > redundancy)) continue;
    if (words + candidate.words > options.maxWords) {
      if (chosen.length > 0) continue;
      chosen.push({ ...candidate, text: truncateWords(candidate.text, options.maxWords) });
      break;
    }
    chosen.push(candidate);
    words += candidate.words;
  }
  return chosen
    .sort((left, right) => left.index - right.index)
    .map((candidate) => withFullStop(candidate.text))
    .join(" ");
}
