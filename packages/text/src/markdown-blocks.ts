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
// Each run of spaces has one way to match: `[ \t]*\|?[ \t]*` would try every split of a long run of spaces.
export const tableSeparatorPattern = /^[ \t]*(?:\|[ \t]*)?:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)+\|?[ \t]*$/;

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
