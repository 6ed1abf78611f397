/**
 * Grep over one text: what a match is and the lines and context reported
 * with it. Pure and free of heavy imports, because the grep worker thread
 * loads it (see grep-worker.ts).
 */
import type { TextSpan } from "../model/entry-model.js";

export type GrepOutputMode = "content" | "files_with_matches" | "count";

export interface GrepTextOptions {
  mode: GrepOutputMode;
  /** Lines of context before and after each reported match. */
  contextLines: number;
  /** Most matches reported (content mode). */
  maxMatches: number;
}

export interface GrepLineMatch {
  /** 1-based line of the match's start. */
  line: number;
  span: TextSpan;
  lineText: string;
  before: string[];
  after: string[];
}

export interface GrepTextResult {
  /** Matches in the text, counted up to `countCap`; 1 at most in files_with_matches mode. */
  matchCount: number;
  /** Reported matches (content mode only). */
  matches: GrepLineMatch[];
}

export const grepTextLimits = {
  /** Longest line text reported, in characters (a longer line is shown around the match). */
  lineChars: 400,
  /** Matches counted per entry before counting stops. */
  countCap: 10_000,
} as const;

/** Text of one line, shown around `around` when longer than the limit. */
function lineTextOf(text: string, lineStart: number, lineEnd: number, around: number): string {
  let end = lineEnd;
  if (end > lineStart && text.charCodeAt(end - 1) === 13) end--;
  if (end - lineStart <= grepTextLimits.lineChars) return text.slice(lineStart, end);
  const from = Math.max(
    lineStart,
    Math.min(around - Math.floor(grepTextLimits.lineChars / 3), end - grepTextLimits.lineChars),
  );
  return text.slice(from, from + grepTextLimits.lineChars);
}

/**
 * Runs `regex` (global) over `text`. Counts matches up to the count cap
 * (stopping at the first in files_with_matches mode) and, in content mode,
 * reports up to `maxMatches` with their line (1-based), span, line text and
 * context lines. Zero-length matches count and are stepped over.
 */
export function grepText(text: string, regex: RegExp, options: GrepTextOptions): GrepTextResult {
  const matches: GrepLineMatch[] = [];
  let matchCount = 0;
  let lineStarts: number[] | undefined;
  const lineStartsOf = () => {
    if (lineStarts === undefined) {
      lineStarts = [0];
      for (let at = text.indexOf("\n"); at >= 0; at = text.indexOf("\n", at + 1)) lineStarts.push(at + 1);
    }
    return lineStarts;
  };
  const lineIndexOf = (offset: number) => {
    const starts = lineStartsOf();
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if ((starts[middle] as number) <= offset) low = middle;
      else high = middle - 1;
    }
    return low;
  };
  const lineBounds = (index: number) => {
    const starts = lineStartsOf();
    const start = starts[index] as number;
    const next = starts[index + 1];
    return { start, end: next === undefined ? text.length : next - 1 };
  };
  const context = (from: number, to: number) => {
    const lines: string[] = [];
    for (let line = Math.max(0, from); line <= Math.min(to, lineStartsOf().length - 1); line++) {
      const { start, end } = lineBounds(line);
      lines.push(lineTextOf(text, start, end, start));
    }
    return lines;
  };

  regex.lastIndex = 0;
  const cap = options.mode === "files_with_matches" ? 1 : grepTextLimits.countCap;
  for (let match = regex.exec(text); match !== null; match = regex.exec(text)) {
    matchCount++;
    if (options.mode === "content" && matches.length < options.maxMatches) {
      const index = lineIndexOf(match.index);
      const bounds = lineBounds(index);
      matches.push({
        line: index + 1,
        span: { start: match.index, end: match.index + match[0].length },
        lineText: lineTextOf(text, bounds.start, bounds.end, match.index),
        before: options.contextLines > 0 ? context(index - options.contextLines, index - 1) : [],
        after: options.contextLines > 0 ? context(index + 1, index + options.contextLines) : [],
      });
    }
    if (matchCount >= cap) break;
    if (match[0].length === 0) {
      // Step over an empty match (a whole code point in Unicode mode), or the loop would never advance.
      const code = text.charCodeAt(regex.lastIndex);
      regex.lastIndex += regex.unicode && code >= 0xd800 && code <= 0xdbff ? 2 : 1;
      if (regex.lastIndex > text.length) break;
    }
  }
  return { matchCount, matches };
}
