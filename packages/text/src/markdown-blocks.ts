/**
 * Markdown's block structure, line by line: the patterns of its block
 * constructs (headings, lists, quotes, tables, breaks) and the walk over the
 * lines that are structure rather than code (front matter and fenced code
 * skipped). The outline and the prose blocks (markdown.ts) both read a text
 * through it.
 */

export interface Line {
  start: number;
  /** End of the line's content, before `\n` or `\r\n`. */
  end: number;
  text: string;
}

export function toLines(text: string): Line[] {
  const lines: Line[] = [];
  let start = 0;
  while (start <= text.length) {
    let newline = text.indexOf("\n", start);
    if (newline < 0) newline = text.length;
    const end = newline > start && text.charCodeAt(newline - 1) === 13 ? newline - 1 : newline;
    lines.push({ start, end, text: text.slice(start, end) });
    start = newline + 1;
  }
  return lines;
}

const fencePattern = /^[ \t]*(`{3,}|~{3,})/;
export const atxPattern = /^ {0,3}(#{1,6})(?=[ \t]|$)(.*)$/;
export const setextPattern = /^ {0,3}(=+|-+)[ \t]*$/;
export const thematicBreakPattern = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
export const listItemPattern = /^[ \t]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]+|$)(?:\[[ xX]\][ \t]+)?/;
export const blockquotePattern = /^[ \t]*(?:>[ \t]?)+/;
export const tableRowPattern = /^[ \t]*\|/;

/** One cell of a table's delimiter row, spaces around it included: dashes, optionally between colons. */
const delimiterCellPattern = /^[ \t]*:?-+:?[ \t]*$/;
const isSpaceOrTab = (char: string | undefined) => char === " " || char === "\t";

/**
 * Whether `text` is a table's delimiter row (`| --- | :-: |`, `--|--`): at
 * least two cells of dashes, each optionally between colons, split by `|`,
 * with an optional `|` at either end and spaces or tabs anywhere between.
 * Read in one pass: a single pattern for the row puts `[ \t]*` at both ends
 * of every cell, and on a cell followed by a long run of tabs it tries every
 * way of sharing the run between them (quadratic in the run's length).
 */
export function isTableDelimiterRow(text: string): boolean {
  let start = 0;
  let end = text.length;
  while (start < end && isSpaceOrTab(text[start])) start += 1;
  while (end > start && isSpaceOrTab(text[end - 1])) end -= 1;
  if (start < end && text[start] === "|") start += 1;
  if (end > start && text[end - 1] === "|") end -= 1;
  const cells = text.slice(start, end).split("|");
  return cells.length >= 2 && cells.every((cell) => delimiterCellPattern.test(cell));
}

/**
 * Walks the lines that are Markdown structure rather than code: skips YAML
 * front matter and the inside of fenced code blocks (``` or ~~~, closed by a
 * fence of the same character at least as long; an unclosed fence runs to
 * the end). `visit` gets each remaining line and whether it is a fence line.
 */
export function forEachStructuralLine(lines: Line[], visit: (line: Line, isFence: boolean) => void): void {
  let index = 0;
  if (lines[0]?.text.trimEnd() === "---") {
    const close = lines.findIndex((line, at) => at > 0 && /^(?:---|\.\.\.)[ \t]*$/.test(line.text));
    if (close > 0) index = close + 1;
  }
  let fence: string | undefined;
  for (; index < lines.length; index++) {
    const line = lines[index] as Line;
    const fenceMatch = fencePattern.exec(line.text);
    if (fence !== undefined) {
      if (fenceMatch !== null && fenceMatch[1]!.startsWith(fence) && line.text.trim() === fenceMatch[1])
        fence = undefined;
      visit(line, true);
      continue;
    }
    if (fenceMatch !== null) {
      fence = fenceMatch[1] as string;
      visit(line, true);
      continue;
    }
    visit(line, false);
  }
}

export function isParagraphLine(text: string): boolean {
  return (
    text.trim() !== "" &&
    !atxPattern.test(text) &&
    !listItemPattern.test(text) &&
    !blockquotePattern.test(text) &&
    !tableRowPattern.test(text) &&
    !thematicBreakPattern.test(text) &&
    !/^ {4,}|^\t/.test(text)
  );
}
