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

const boundary = /[.!?…]+["'”’)\]]*(?=\s)|\n[ \t]*\n/g;

/**
 * Splits plain text into sentences, in order, trimmed, with their offsets.
 * A sentence ends at `.`, `!`, `?` or `…` (plus closing quotes or brackets)
 * followed by whitespace, unless the next word starts lowercase or the word
 * before is a known abbreviation or a single-letter initial; a blank line
 * always ends one. Text without terminal punctuation is one sentence.
 */
export function splitSentences(text: string): TextSegment[] {
  const sentences: TextSegment[] = [];
  let sentenceStart = 0;
  boundary.lastIndex = 0;
  for (let match = boundary.exec(text); match !== null; match = boundary.exec(text)) {
    const end = match.index + match[0].length;
    if (match[0].charCodeAt(0) !== 10 && !isSentenceEnd(text, match.index, end)) continue;
    pushTrimmed(sentences, text, sentenceStart, end);
    sentenceStart = end;
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
