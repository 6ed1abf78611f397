/**
 * Markdown's outline (its heading sections and their stable ids) and its
 * prose blocks, read over the block structure of markdown-blocks.ts with
 * inline markup removed by markdown-inline.ts.
 */
import type { TextSegment } from "./sentences.js";
import {
  atxPattern,
  blockquotePattern,
  forEachStructuralLine,
  isTableDelimiterRow,
  isParagraphLine,
  listItemPattern,
  setextPattern,
  tableRowPattern,
  thematicBreakPattern,
  toLines,
} from "./markdown-blocks.js";
import { stripInlineMarkdown } from "./markdown-inline.js";

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
    // Each run is one "-" by now, so one at either end is all there is to drop.
    .replace(/^-|-$/g, "");
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
    if (content.trim() === "" || tableRowPattern.test(content) || isTableDelimiterRow(content)) {
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
