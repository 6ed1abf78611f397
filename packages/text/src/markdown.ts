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
// Each run of spaces has one way to match: `[ \t]*\|?[ \t]*` would try every split of a long run of spaces.
const tableSeparatorPattern = /^[ \t]*(?:\|[ \t]*)?:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)+\|?[ \t]*$/;

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

const isSpaceOrTab = (code: number) => code === 32 || code === 9;

/**
 * An ATX heading's content without its optional closing sequence: trailing
 * `#`s that stand at the start or after a space or tab, with the spaces and
 * tabs around them. Scans from the end once; a pattern such as
 * `(?:^|[ \t]+)#+[ \t]*$` would rescan a long run of spaces from each of its
 * characters.
 */
function withoutClosingSequence(content: string): string {
  let end = content.length;
  while (end > 0 && isSpaceOrTab(content.charCodeAt(end - 1))) end--;
  let hashes = end;
  while (hashes > 0 && content.charCodeAt(hashes - 1) === 35) hashes--;
  if (hashes === end || (hashes > 0 && !isSpaceOrTab(content.charCodeAt(hashes - 1)))) return content;
  while (hashes > 0 && isSpaceOrTab(content.charCodeAt(hashes - 1))) hashes--;
  return content.slice(0, hashes);
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
      const content = withoutClosingSequence(atx[2] as string).trim();
      headings.push({ level: (atx[1] as string).length, heading: stripInlineMarkdown(content), start: line.start });
      paragraph = undefined;
      return;
    }
    const setext = setextPattern.exec(line.text);
    if (setext !== null && paragraph !== undefined) {
      headings.push({
        level: setext[1]!.startsWith("=") ? 1 : 2,
        heading: stripInlineMarkdown(paragraph.texts.join(" ")),
        start: paragraph.start,
      });
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
  /** Per base slug, the suffix to try first: every smaller one is taken, so many same-named siblings cost linear time. */
  nextSuffix: Map<string, number>;
  /** Where its section is in the outline (-1 for the root), so the heading that closes it can set its end. */
  index: number;
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
  const root: OpenSection = { level: 0, nodeId: "", path: [], childIds: new Set(), nextSuffix: new Map(), index: -1 };
  const stack: OpenSection[] = [root];
  for (const heading of headings) {
    // A section ends where the first later heading of its level or a higher one starts: the one that closes it here.
    // Looking ahead from each heading instead rescans the deeper headings after it once per open ancestor.
    while ((stack[stack.length - 1] as OpenSection).level >= heading.level)
      (sections[(stack.pop() as OpenSection).index] as OutlineSection).end = heading.start;
    const parent = stack[stack.length - 1] as OpenSection;
    const base = slugify(heading.heading) || "section";
    let segment = base;
    if (parent.childIds.has(segment)) {
      let suffix = parent.nextSuffix.get(base) ?? 2;
      for (segment = `${base}-${suffix}`; parent.childIds.has(segment); ) segment = `${base}-${++suffix}`;
      parent.nextSuffix.set(base, suffix + 1);
    }
    parent.childIds.add(segment);
    const nodeId = parent.nodeId === "" ? segment : `${parent.nodeId}/${segment}`;
    const path = [...parent.path, heading.heading];
    // Open until a later heading closes it; the ones still open at the end run to the end of the text.
    sections.push({
      nodeId,
      heading: heading.heading,
      level: heading.level,
      start: heading.start,
      end: text.length,
      path,
    });
    stack.push({
      level: heading.level,
      nodeId,
      path,
      childIds: new Set(),
      nextSuffix: new Map(),
      index: sections.length - 1,
    });
  }
  return sections;
}

/**
 * For nondecreasing `from`, the first index at or after `from` whose
 * character passes `test` (-1 when none): every character is looked at once
 * over all calls, however many openers share the same closer.
 */
function createForwardFinder(text: string, test: (char: string) => boolean): (from: number) => number {
  let found = -2;
  return (from) => {
    if (found === -1 || found >= from) return found;
    let at = from;
    while (at < text.length && !test(text.charAt(at))) at++;
    found = at < text.length ? at : -1;
    return found;
  };
}

const whitespace = /\s/;

/**
 * Replaces each match of a link-shaped construct, left to right without
 * overlaps, as the global patterns `![alt](url)`, `[text](url)`,
 * `[text][ref]` and `<https://…>` would (`\[([^\]]+)\]\([^)]*\)` and its
 * kin), but finds each opener's closing bracket with a forward finder, so a
 * run of openers sharing one far-away closer (`[[[[…`, `[x](` repeated) is
 * not rescanned once per opener.
 */
function replaceLinks(text: string, kind: "image" | "inline" | "reference" | "autolink"): string {
  const bracket = createForwardFinder(text, (char) => char === "]");
  const second = createForwardFinder(text, (char) => (kind === "reference" ? char === "]" : char === ")"));
  const autolinkEnd = createForwardFinder(text, (char) => char === ">" || whitespace.test(char));
  const parts: string[] = [];
  let kept = 0;
  let at = 0;
  while (at < text.length) {
    let keep: [number, number] | undefined;
    let end = -1;
    if (kind === "autolink") {
      const scheme = text.startsWith("<https://", at) ? 9 : text.startsWith("<http://", at) ? 8 : 0;
      if (scheme > 0) {
        const close = autolinkEnd(at + scheme);
        if (close > at + scheme && text.charAt(close) === ">") [keep, end] = [[at + 1, close], close + 1];
      }
    } else if (kind === "image" ? text.startsWith("![", at) : text.charAt(at) === "[") {
      const textStart = at + (kind === "image" ? 2 : 1);
      const close = bracket(textStart);
      if (
        close >= 0 &&
        (kind === "image" || close > textStart) &&
        text.charAt(close + 1) === (kind === "reference" ? "[" : "(")
      ) {
        const last = second(close + 2);
        if (last >= 0) [keep, end] = [[textStart, close], last + 1];
      }
    }
    if (keep === undefined) {
      at++;
      continue;
    }
    parts.push(text.slice(kept, at), text.slice(keep[0], keep[1]));
    kept = end;
    at = end;
  }
  parts.push(text.slice(kept));
  return parts.join("");
}

const htmlTag = /<\/?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?\/?>/g;
const codeSpan = /`+([^`]*)`+/g;
const starEmphasis = /(^|[^\p{L}\p{N}*])\*(?=\S)([^*]*?\S)\*(?![\p{L}\p{N}])/gu;
const underscoreEmphasis = /(^|[^\p{L}\p{N}_])_(?=\S)([^_]*?\S)_(?![\p{L}\p{N}_])/gu;
const escape = /\\([\\`*_{}[\]()#+\-.!>|])/g;
/**
 * A character without which `stripInlineMarkdown` has nothing to remove but
 * whitespace: links, images and link references open with `[`, autolinks,
 * tags and comments with `<`, code spans with a backtick, emphasis, strong
 * and strike-through with `*`, `_` or `~`, escapes with a backslash.
 */
const inlineMarkupCharacter = /[[<`*_~\\]/;

/**
 * `text` with every HTML comment replaced by a space. A comment runs from
 * `<!--` to the first `-->` after it; once one is never closed, none after it
 * can be, so the scan stops there (a lazy pattern would rescan to the end
 * from every unclosed opener).
 */
function withoutHtmlComments(text: string): string {
  let open = text.indexOf("<!--");
  if (open < 0) return text;
  const parts: string[] = [];
  let kept = 0;
  while (open >= 0) {
    const close = text.indexOf("-->", open + 4);
    if (close < 0) break;
    parts.push(text.slice(kept, open), " ");
    kept = close + 3;
    open = text.indexOf("<!--", kept);
  }
  parts.push(text.slice(kept));
  return parts.join("");
}

const isNonSpace = (char: string) => char !== "" && !/\s/.test(char);

/**
 * `text` with `**strong**`, `__strong__` and `~~struck~~` markers removed: an
 * opening pair followed by a non-space pairs with the first same pair after
 * it that follows a non-space. Once an opening pair finds no closing one,
 * no later opening pair of that kind can, so it is not looked for again
 * (the lazy pattern `(\*\*|__|~~)(?=\S)([\s\S]*?\S)\1` would rescan to
 * the end from every opener of "**x " repeated).
 */
function withoutStrongAndStrike(text: string): string {
  const parts: string[] = [];
  let kept = 0;
  const unclosed = new Set<string>();
  for (let at = 0; at + 2 < text.length; ) {
    const code = text.charCodeAt(at);
    if (
      (code !== 42 && code !== 95 && code !== 126) ||
      text.charCodeAt(at + 1) !== code ||
      !isNonSpace(text.charAt(at + 2))
    ) {
      at++;
      continue;
    }
    const pair = text.slice(at, at + 2);
    let close = unclosed.has(pair) ? -1 : text.indexOf(pair, at + 3);
    while (close >= 0 && !isNonSpace(text.charAt(close - 1))) close = text.indexOf(pair, close + 1);
    if (close < 0) {
      unclosed.add(pair);
      at++;
      continue;
    }
    parts.push(text.slice(kept, at), text.slice(at + 2, close));
    kept = close + 2;
    at = kept;
  }
  parts.push(text.slice(kept));
  return parts.join("");
}

/**
 * Removes inline Markdown from one line or paragraph while keeping its words:
 * links and images become their text, code spans lose their backticks,
 * emphasis and strike-through markers and HTML tags go, backslash escapes
 * resolve, and whitespace collapses. Underscores inside words (`snake_case`)
 * are kept. Takes time linear in the text's length, whatever markup it holds.
 */
export function stripInlineMarkdown(text: string): string {
  // Most headings and lines hold no markup at all: only their whitespace needs collapsing.
  if (!inlineMarkupCharacter.test(text)) return text.replace(/\s+/g, " ").trim();
  const linksResolved = replaceLinks(
    replaceLinks(replaceLinks(replaceLinks(text, "image"), "inline"), "reference"),
    "autolink",
  );
  return withoutStrongAndStrike(withoutHtmlComments(linksResolved).replace(htmlTag, " ").replace(codeSpan, "$1"))
    .replace(starEmphasis, "$1$2")
    .replace(underscoreEmphasis, "$1$2")
    .replace(escape, "$1")
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
    if (open === undefined)
      open = { start: line.start, end: line.end, parts: [], isParagraph: item === null && quote === null };
    open.parts.push(content.trim());
    open.end = line.end;
  });
  flush();
  return blocks;
}
