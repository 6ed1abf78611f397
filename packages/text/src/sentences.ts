/** A piece of a text and where it sits, in UTF-16 offsets (end exclusive). */
export interface TextSegment {
  text: string;
  start: number;
  end: number;
}

// Words whose trailing period rarely ends a sentence.
const abbreviations = new Set([
  "e.g",
  "i.e",
  "vs",
  "mr",
  "mrs",
  "ms",
  "dr",
  "prof",
  "sr",
  "jr",
  "fig",
  "approx",
  "cf",
  "al",
  "inc",
  "ltd",
  "corp",
  "dept",
  "jan",
  "feb",
  "apr",
  "jun",
  "jul",
  "aug",
  "sep",
  "sept",
  "oct",
  "nov",
  "dec",
  "resp",
  "viz",
]);

const isTerminal = (char: string) => char === "." || char === "!" || char === "?" || char === "…";
const isCloser = (char: string) =>
  char === '"' || char === "'" || char === "”" || char === "’" || char === ")" || char === "]";
const whitespace = /\s/;
const isWhitespace = (char: string) => char !== "" && whitespace.test(char);

/**
 * The next candidate sentence boundary at or after `from`: a run of `.!?…`
 * with any closing quotes or brackets, followed by whitespace (`isBlankLine`
 * false), or a newline, spaces or tabs, and a newline (`isBlankLine` true).
 * One forward pass: a run that is not followed by whitespace is skipped
 * whole, so a long run of dots costs its length once, not its length squared.
 */
function nextBoundary(text: string, from: number): { start: number; end: number; isBlankLine: boolean } | undefined {
  let at = from;
  while (at < text.length) {
    const char = text.charAt(at);
    if (isTerminal(char)) {
      let end = at + 1;
      while (end < text.length && isTerminal(text.charAt(end))) end++;
      while (end < text.length && isCloser(text.charAt(end))) end++;
      if (isWhitespace(text.charAt(end))) return { start: at, end, isBlankLine: false };
      at = end;
    } else if (char === "\n") {
      let end = at + 1;
      while (end < text.length && (text.charAt(end) === " " || text.charAt(end) === "\t")) end++;
      if (text.charAt(end) === "\n") return { start: at, end: end + 1, isBlankLine: true };
      at = end;
    } else {
      at++;
    }
  }
  return undefined;
}

/**
 * Splits plain text into sentences, in order, trimmed, with their offsets.
 * A sentence ends at `.`, `!`, `?` or `…` (plus closing quotes or brackets)
 * followed by whitespace, unless the next word starts lowercase or the word
 * before is a known abbreviation or a single-letter initial; a blank line
 * always ends one. Text without terminal punctuation is one sentence. Takes
 * time linear in the text's length.
 */
export function splitSentences(text: string): TextSegment[] {
  const sentences: TextSegment[] = [];
  let sentenceStart = 0;
  for (let boundary = nextBoundary(text, 0); boundary !== undefined; boundary = nextBoundary(text, boundary.end)) {
    if (!boundary.isBlankLine && !isSentenceEnd(text, boundary.start, boundary.end)) continue;
    pushTrimmed(sentences, text, sentenceStart, boundary.end);
    sentenceStart = boundary.end;
  }
  pushTrimmed(sentences, text, sentenceStart, text.length);
  return sentences;
}

function isSentenceEnd(text: string, punctuationAt: number, end: number): boolean {
  let next = end;
  while (next < text.length && /\s/.test(text.charAt(next))) next++;
  if (next >= text.length) return true;
  // A lowercase continuation means the period belonged to an abbreviation or a number.
  const following = text.charAt(next);
  if (following.toLowerCase() === following && following.toUpperCase() !== following) return false;
  if (text.charAt(punctuationAt) !== ".") return true;
  let wordStart = punctuationAt;
  while (wordStart > 0 && /[\p{L}.]/u.test(text.charAt(wordStart - 1))) wordStart--;
  const word = text.slice(wordStart, punctuationAt).toLowerCase();
  if (word.length === 1 && /\p{Lu}/u.test(text.charAt(wordStart))) return false;
  return !abbreviations.has(word);
}

function pushTrimmed(into: TextSegment[], text: string, start: number, end: number): void {
  while (start < end && /\s/.test(text.charAt(start))) start++;
  while (end > start && /\s/.test(text.charAt(end - 1))) end--;
  if (end > start) into.push({ text: text.slice(start, end), start, end });
}
