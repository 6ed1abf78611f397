import type { TextSegment } from "./sentences.js";

/** One Markdown heading section. Offsets are UTF-16 code units into the parsed text. */
export interface OutlineSection {
  /**
   * Stable, readable id derived only from the heading path: slugified headings
   * joined with "/" (`setup/install`), a `-2`, `-3`… suffix telling apart
   * same-named siblings. Editing a section's body never changes it.
   */
  nodeId: string;
  /** Heading text with Markdown syntax removed. */
  heading: string;
  /** 1–6 for ATX headings; 1 (`===`) or 2 (`---`) for setext headings. */
  level: number;
  /** Offset of the heading line. */
  start: number;
  /** Exclusive end: the next heading of the same or a higher level, or the end of the text. */
  end: number;
  /** Headings from the top-level ancestor down to this one. */
  path: string[];
}

interface Line {
  start: number;
  /** End of the line's content, before `\n` or `\r\n`. */
  end: number;
  text: string;
}

function toLines(text: string): Line[] {
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
const atxPattern = /^ {0,3}(#{1,6})(?=[ \t]|$)(.*)$/;
const setextPattern = /^ {0,3}(=+|-+)[ \t]*$/;
const thematicBreakPattern = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const listItemPattern = /^[ \t]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]+|$)(?:\[[ xX]\][ \t]+)?/;
const blockquotePattern = /^[ \t]*(?:>[ \t]?)+/;
const tableRowPattern = /^[ \t]*\|/;
const tableSeparatorPattern = /^[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)+\|?[ \t]*$/;

/**
 * Walks the lines that are Markdown structure rather than code: skips YAML
 * front matter and the inside of fenced code blocks (``` or ~~~, closed by a
 * fence of the same character at least as long; an unclosed fence runs to
 * the end). `visit` gets each remaining line and whether it is a fence line.
 */
function forEachStructuralLine(lines: Line[], visit: (line: Line, isFence: boolean) => void): void {
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
      if (fenceMatch !== null && fenceMatch[1]!.startsWith(fence) && line.text.trim() === fenceMatch[1]) fence = undefined;
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

function isParagraphLine(text: string): boolean {
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

interface Heading {
  level: number;
  heading: string;
  start: number;
}

function findHeadings(text: string): Heading[] {
  const headings: Heading[] = [];
  let paragraph: { start: number; texts: string[] } | undefined;
  forEachStructuralLine(toLines(text), (line, isFence) => {
    if (isFence) {
      paragraph = undefined;
      return;
    }
    const atx = atxPattern.exec(line.text);
    if (atx !== null) {
      const content = (atx[2] as string).replace(/(?:^|[ \t]+)#+[ \t]*$/, "").trim();
      headings.push({ level: (atx[1] as string).length, heading: stripInlineMarkdown(content), start: line.start });
      paragraph = undefined;
      return;
    }
    const setext = setextPattern.exec(line.text);
    if (setext !== null && paragraph !== undefined) {
      headings.push({ level: setext[1]!.startsWith("=") ? 1 : 2, heading: stripInlineMarkdown(paragraph.texts.join(" ")), start: paragraph.start });
      paragraph = undefined;
      return;
    }
    if (isParagraphLine(line.text)) {
      if (paragraph === undefined) paragraph = { start: line.start, texts: [] };
      paragraph.texts.push(line.text.trim());
    } else {
      paragraph = undefined;
    }
  });
  return headings;
}

/**
 * A URL- and path-friendly form of a heading: lowercase, accents removed,
 * every run of characters other than letters and digits turned into one `-`,
 * at most 64 characters. Letters of any script are kept so ids stay readable.
 */
export function slugify(text: string): string {
  const slug = text
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, "-")
    .replace(/^-+|-+$/g, "");
  if (slug.length <= 64) return slug;
  const cut = slug.slice(0, 64);
  const lastDash = cut.lastIndexOf("-");
  return lastDash > 32 ? cut.slice(0, lastDash) : cut;
}

interface OpenSection {
  level: number;
  nodeId: string;
  path: string[];
  childIds: Set<string>;
}

/**
 * The heading outline of a Markdown text, in document order. Recognises ATX
 * (`## Title`, up to three spaces of indentation, optional closing #s) and
 * setext (`Title` underlined with `===` or `---`) headings; ignores `#` lines
 * inside fenced code blocks and YAML front matter. Each section spans from
 * its heading line to the next heading of the same or a higher level (so it
 * includes its subsections). A text without headings has no sections.
 */
export function parseOutline(text: string): OutlineSection[] {
  const headings = findHeadings(text);
  const sections: OutlineSection[] = [];
  const root: OpenSection = { level: 0, nodeId: "", path: [], childIds: new Set() };
  const stack: OpenSection[] = [root];
  headings.forEach((heading, index) => {
    while ((stack[stack.length - 1] as OpenSection).level >= heading.level) stack.pop();
    const parent = stack[stack.length - 1] as OpenSection;
    const base = slugify(heading.heading) || "section";
    let segment = base;
    for (let suffix = 2; parent.childIds.has(segment); suffix++) segment = `${base}-${suffix}`;
    parent.childIds.add(segment);
    const nodeId = parent.nodeId === "" ? segment : `${parent.nodeId}/${segment}`;
    const path = [...parent.path, heading.heading];
    let end = text.length;
    for (let next = index + 1; next < headings.length; next++) {
      if ((headings[next] as Heading).level <= heading.level) {
        end = (headings[next] as Heading).start;
        break;
      }
    }
    sections.push({ nodeId, heading: heading.heading, level: heading.level, start: heading.start, end, path });
    stack.push({ level: heading.level, nodeId, path, childIds: new Set() });
  });
  return sections;
}

/**
 * Removes inline Markdown from one line or paragraph while keeping its words:
 * links and images become their text, code spans lose their backticks,
 * emphasis and strike-through markers and HTML tags go, backslash escapes
 * resolve, and whitespace collapses. Underscores inside words (`snake_case`)
 * are kept.
 */
export function stripInlineMarkdown(text: string): string {
  return text
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\[([^\]]+)\]\([^)]*\)/g, "$1")
    .replace(/\[([^\]]+)\]\[[^\]]*\]/g, "$1")
    .replace(/<(https?:\/\/[^>\s]+)>/g, "$1")
    .replace(/<!--[\s\S]*?-->/g, " ")
    .replace(/<\/?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?\/?>/g, " ")
    .replace(/`+([^`]*)`+/g, "$1")
    .replace(/(\*\*|__|~~)(?=\S)([\s\S]*?\S)\1/g, "$2")
    .replace(/(^|[^\p{L}\p{N}*])\*(?=\S)([^*]*?\S)\*(?![\p{L}\p{N}])/gu, "$1$2")
    .replace(/(^|[^\p{L}\p{N}_])_(?=\S)([^_]*?\S)_(?![\p{L}\p{N}_])/gu, "$1$2")
    .replace(/\\([\\`*_{}[\]()#+\-.!>|])/g, "$1")
    .replace(/\s+/g, " ")
    .trim();
}

/**
 * The prose of a Markdown text as blocks in document order: paragraphs, list
 * items and quoted paragraphs, with Markdown syntax removed from `text`
 * (heading lines, code blocks, tables, thematic breaks and front matter are
 * left out entirely). `start`/`end` locate each block in the original text.
 */
export function toProseBlocks(text: string): TextSegment[] {
  const blocks: TextSegment[] = [];
  let open: { start: number; end: number; parts: string[]; isParagraph: boolean } | undefined;
  const flush = () => {
    if (open === undefined) return;
    const plain = stripInlineMarkdown(open.parts.join(" "));
    if (plain !== "") blocks.push({ text: plain, start: open.start, end: open.end });
    open = undefined;
  };
  forEachStructuralLine(toLines(text), (line, isFence) => {
    if (isFence || atxPattern.test(line.text)) {
      flush();
      return;
    }
    if (open !== undefined && setextPattern.test(line.text)) {
      // The open paragraph was a setext heading's title, not prose.
      if (open.isParagraph) open = undefined;
      else flush();
      return;
    }
    if (thematicBreakPattern.test(line.text)) {
      flush();
      return;
    }
    let content = line.text;
    const quote = blockquotePattern.exec(content);
    if (quote !== null) content = content.slice(quote[0].length);
    if (content.trim() === "" || tableRowPattern.test(content) || tableSeparatorPattern.test(content)) {
      flush();
      return;
    }
    const item = listItemPattern.exec(content);
    if (item !== null) {
      flush();
      content = content.slice(item[0].length);
    }
    if (open === undefined) open = { start: line.start, end: line.end, parts: [], isParagraph: item === null && quote === null };
    open.parts.push(content.trim());
    open.end = line.end;
  });
  flush();
  return blocks;
}
