/**
 * An answer built only from the evidence's own sentences: the sentences that
 * hold the most of the question's rarer words, each cited with itself as the
 * quote, and the question's words no passage holds as gaps. No model, no
 * network; time linear in the evidence's length.
 */
import { splitSentences } from "./sentences.js";
import { isStopword, toStem, tokenize } from "./tokenizer.js";

/** One cited piece of evidence: the 1-based passage and words copied from it. */
export interface AnswerCitation {
  passage: number;
  quote: string;
}

export interface AnswerStatement {
  text: string;
  citations: AnswerCitation[];
}

/** An answer before its citations are checked against the evidence. */
export interface DraftAnswer {
  statements: AnswerStatement[];
  /** Parts of the question the evidence does not cover. */
  gaps: string[];
}

/** The model id the extractive answer is reported under, wherever it runs. */
export const extractiveAnswerModel = "builtin-extractive-answer-v1";

/** Longest statement the extractive answer quotes; a longer sentence is cut at a word. */
export const extractiveStatementChars = 400;

/** Words that ask rather than say what is asked about: never reported as a gap. */
const askingWords = new Set(
  "what which who whom whose when where why how explain describe tell give list show find know need want please there any anything information".split(
    " ",
  ),
);

/** What a sentence shares with the question after the statements already chosen: new words count fully, repeats half. */
const repeatedWordShare = 0.5;

interface Candidate {
  passage: number;
  text: string;
  stems: Set<string>;
}

/** The question's content words, stemmed, each with one of its spellings in the question (for gaps). */
function questionWords(question: string): Map<string, string> {
  const words = new Map<string, string>();
  for (const token of tokenize(question)) {
    if (isStopword(token) || token.length < 2) continue;
    const stem = toStem(token);
    if (!words.has(stem)) words.set(stem, token);
  }
  return words;
}

/** `text` cut to at most `max` characters at a word boundary (whole when short enough). */
function clipAtWord(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const space = cut.lastIndexOf(" ");
  return (space > max / 2 ? cut.slice(0, space) : cut).trimEnd();
}

/**
 * The extractive answer to `question` from `passages` (best first): up to
 * `maxStatements` sentences, chosen greedily by the idf (over the evidence's
 * sentences) of the question words each holds, a word already covered by a
 * chosen sentence counting half, ties going to the earlier passage. Each
 * statement is its sentence (cut to `extractiveStatementChars`) citing its
 * passage with the same words as the quote. Sentences holding none of the
 * question's words are never chosen; near-repeats of a chosen sentence
 * neither. Gaps name the question's words that no passage holds.
 */
export function answerExtractively(
  question: string,
  passages: readonly string[],
  options: { maxStatements: number },
): DraftAnswer {
  const words = questionWords(question);
  const candidates: Candidate[] = [];
  const documentFrequency = new Map<string, number>();
  const inEvidence = new Set<string>();
  passages.forEach((passage, index) => {
    for (const sentence of splitSentences(passage)) {
      const text = sentence.text.replace(/\s+/g, " ").trim();
      if (text === "") continue;
      const stems = new Set(tokenize(text).map(toStem));
      const shared = new Set([...stems].filter((stem) => words.has(stem)));
      for (const stem of stems)
        if (words.has(stem)) documentFrequency.set(stem, (documentFrequency.get(stem) ?? 0) + 1);
      for (const stem of shared) inEvidence.add(stem);
      if (shared.size > 0) candidates.push({ passage: index + 1, text, stems: shared });
    }
  });
  const sentences = Math.max(candidates.length, 1);
  const idf = (stem: string) => Math.log(1 + sentences / (documentFrequency.get(stem) ?? 1));

  const covered = new Set<string>();
  const chosen: AnswerStatement[] = [];
  const remaining = [...candidates];
  while (chosen.length < options.maxStatements && remaining.length > 0) {
    let best = -1;
    let bestGain = 0;
    remaining.forEach((candidate, index) => {
      let gain = 0;
      for (const stem of candidate.stems) gain += idf(stem) * (covered.has(stem) ? repeatedWordShare : 1);
      if (gain > bestGain) [best, bestGain] = [index, gain];
    });
    if (best < 0) break;
    const [pick] = remaining.splice(best, 1) as [Candidate];
    // A sentence that adds no question word to what is chosen and repeats a chosen one's text says nothing new.
    const repeats = chosen.some((statement) => statement.text === clipAtWord(pick.text, extractiveStatementChars));
    if (repeats) continue;
    for (const stem of pick.stems) covered.add(stem);
    const quote = clipAtWord(pick.text, extractiveStatementChars);
    chosen.push({ text: quote, citations: [{ passage: pick.passage, quote }] });
  }

  const missing = [...words]
    .filter(([stem, word]) => !inEvidence.has(stem) && !askingWords.has(word))
    .map(([, word]) => word);
  const gaps =
    chosen.length === 0
      ? ["The evidence found holds none of the question's words."]
      : missing.length === 0
        ? []
        : [`The evidence does not mention: ${missing.join(", ")}.`];
  return { statements: chosen, gaps };
}
