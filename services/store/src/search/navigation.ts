/**
 * Navigating one entry's text: its Markdown heading outline (node ids from
 * `parseOutline`, stable across edits of a section's body) joined with the
 * node summaries generated at write time, line numbers, and the bounded
 * ranges a reader may ask for. Offsets are UTF-16 code units, lines 1-based.
 */
import { invalidArgument, type ContextHubError } from "@context-hub/common";
import { parseOutline, type OutlineSection } from "@context-hub/text";
import type { NodeSummary, TextSpan } from "../model/entry-model.js";

export interface OutlineNodeView {
  nodeId: string;
  heading: string;
  level: number;
  span: TextSpan;
  startLine: number;
  endLine: number;
  path: string[];
  /** Generated at write time; empty when the section got none (too short, or summaries off). */
  summary: string;
  /** The enclosing section's node id; empty for a top-level section. */
  parentId: string;
  /** Direct subsections; more than 0 means a move to "children" finds some. */
  childCount: number;
}

/** One page of an outline: the nodes from `offset`, and where the next page starts. */
export interface Outline {
  nodes: OutlineNodeView[];
  lineCount: number;
  /** Nodes in the whole outline (to `maxDepth`), across every page. */
  totalNodes: number;
  /** The offset of the first node this page does not hold; 0 when it is the last page. */
  nextOffset: number;
  /** Why a move through the outline found no node (past the root, the first or the last); empty otherwise. */
  note: string;
}

/** Which nodes of an outline one reply holds: from `offset`, at most `maxNodes` of them and about `maxBytes` of their text. */
export interface OutlinePage {
  offset: number;
  maxNodes: number;
  maxBytes: number;
}

/**
 * How much of an outline one reply holds. A text of a million characters can
 * have tens of thousands of headings, and a reply with all of them (each with
 * its path and summary) took seconds to build, fence and send: a caller pages
 * through with `offset` instead. `maxBytes` bounds the characters of the
 * nodes' ids, headings, paths and summaries, since a page of long summaries
 * is large even at few nodes; a page always holds at least one node.
 */
export const outlinePageLimits = { defaultNodes: 200, maxNodes: 1_000, maxBytes: 256 * 1024 } as const;

/** The whole outline in one page (tests and callers that bound it otherwise). */
export const wholeOutline: OutlinePage = {
  offset: 0,
  maxNodes: Number.POSITIVE_INFINITY,
  maxBytes: Number.POSITIVE_INFINITY,
};

/** A range of an entry's text as a reader asks for it. */
export type RangeRequest =
  | { kind: "chars"; start: number; end: number }
  /** 1-based, inclusive. */
  | { kind: "lines"; start: number; end: number }
  | { kind: "node"; nodeId: string };

export interface ResolvedRange {
  span: TextSpan;
  startLine: number;
  endLine: number;
  /** The range was longer than allowed and was cut; continue at `span.end`. */
  truncated: boolean;
  /** The heading of the node read, for a node range. */
  heading: string;
}

export const rangeLimits = { defaultMaxChars: 10_000, maxChars: 100_000 } as const;

/** Offsets at which the text's lines start: 0, then every offset after a `\n` that is not the end. */
export function toLineStarts(text: string): number[] {
  const starts = [0];
  for (let at = text.indexOf("\n"); at >= 0 && at + 1 < text.length; at = text.indexOf("\n", at + 1))
    starts.push(at + 1);
  return starts;
}

/** The 1-based line holding `offset`. */
export function lineOf(starts: readonly number[], offset: number): number {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if ((starts[middle] as number) <= offset) low = middle;
    else high = middle - 1;
  }
  return low + 1;
}

/** The last line a span touches (its end is exclusive). */
function lastLineOf(starts: readonly number[], span: TextSpan): number {
  return lineOf(starts, Math.max(span.start, span.end - 1));
}

/** The node id of the section enclosing `nodeId`; empty for a top-level one. Slugs hold no `/`, so the last one splits it. */
export function parentOf(nodeId: string): string {
  const slash = nodeId.lastIndexOf("/");
  return slash < 0 ? "" : nodeId.slice(0, slash);
}

/** How many direct subsections each section of an outline has, by node id (absent: none). */
export function countChildren(sections: readonly OutlineSection[]): Map<string, number> {
  const children = new Map<string, number>();
  for (const section of sections) {
    const parent = parentOf(section.nodeId);
    if (parent !== "") children.set(parent, (children.get(parent) ?? 0) + 1);
  }
  return children;
}

/**
 * A page of `selected` (some of the sections of `text`, in the order a reply
 * lists them) as node views with lines, parent, child count and stored
 * summary. An offset past the last one is INVALID_ARGUMENT naming how many
 * there are.
 */
export function toOutlinePage(
  text: string,
  summaries: readonly NodeSummary[],
  selected: readonly OutlineSection[],
  children: ReadonlyMap<string, number>,
  page: OutlinePage,
): Outline {
  if (page.offset > selected.length) {
    throw invalidArgument(
      `offset ${page.offset} is past the outline's last node: it has ${selected.length}`,
      "start at 0, or at a previous reply's next_offset",
    );
  }
  const starts = toLineStarts(text);
  const summaryOf = new Map(summaries.map((node) => [node.nodeId, node.summary]));
  const nodes: OutlineNodeView[] = [];
  let bytes = 0;
  let index = page.offset;
  for (; index < selected.length && nodes.length < page.maxNodes; index++) {
    const section = selected[index]!;
    const summary = summaryOf.get(section.nodeId) ?? "";
    bytes +=
      section.nodeId.length +
      section.heading.length +
      summary.length +
      section.path.reduce((length, part) => length + part.length, 0);
    if (bytes > page.maxBytes && nodes.length > 0) break;
    const span = { start: section.start, end: section.end };
    nodes.push({
      nodeId: section.nodeId,
      heading: section.heading,
      level: section.level,
      span,
      startLine: lineOf(starts, span.start),
      endLine: lastLineOf(starts, span),
      path: section.path,
      summary,
      parentId: parentOf(section.nodeId),
      childCount: children.get(section.nodeId) ?? 0,
    });
  }
  return {
    nodes,
    lineCount: text.length === 0 ? 0 : starts.length,
    totalNodes: selected.length,
    nextOffset: index < selected.length ? index : 0,
    note: "",
  };
}

/**
 * A page of the outline of `text`: heading sections in document order from
 * `page.offset`, each with its span, lines, path, parent and child count, and
 * the stored summary of the node with the same id. `maxDepth` > 0 keeps only
 * sections nested at most that deep (offsets count those kept). An offset
 * past the last node is INVALID_ARGUMENT naming how many there are.
 */
export function buildOutline(
  text: string,
  summaries: readonly NodeSummary[],
  maxDepth = 0,
  page: OutlinePage = wholeOutline,
): Outline {
  const sections = parseOutline(text);
  const kept = maxDepth === 0 ? sections : sections.filter((section) => section.path.length <= maxDepth);
  return toOutlinePage(text, summaries, kept, countChildren(sections), page);
}

/** INVALID_ARGUMENT for a node id the entry's outline does not have, naming it (cut to 200 characters). */
export function noSuchNode(nodeId: string): ContextHubError {
  return invalidArgument(
    `the entry has no outline node ${JSON.stringify(nodeId.slice(0, 200))}`,
    "list the entry's node ids with navigate_context",
  );
}

/** An end that does not split a surrogate pair. */
function safeEnd(text: string, end: number, start: number): number {
  const code = text.charCodeAt(end - 1);
  return end - 1 > start && code >= 0xd800 && code <= 0xdbff ? end - 1 : end;
}

/**
 * The span of `text` a range names, cut to `maxChars`: characters `[start,
 * end)` (an end past the text is clamped), lines `start..end` (inclusive; an
 * end past the last line is clamped), or an outline node's section. A range
 * that starts past the text, is empty, or names a node the text does not
 * have is INVALID_ARGUMENT saying what exists.
 */
export function resolveRange(text: string, range: RangeRequest, maxChars: number): ResolvedRange {
  const starts = toLineStarts(text);
  const lineCount = starts.length;
  let span: TextSpan;
  let heading = "";
  switch (range.kind) {
    case "chars": {
      if (range.end <= range.start)
        throw invalidArgument(`the character range must have end > start (got ${range.start}..${range.end})`);
      if (range.start >= text.length)
        throw invalidArgument(
          `the range starts at ${range.start}, past the end of the text (${text.length} characters)`,
        );
      span = { start: range.start, end: Math.min(range.end, text.length) };
      break;
    }
    case "lines": {
      if (range.start < 1 || range.end < range.start)
        throw invalidArgument(`the line range must have 1 <= start <= end (got ${range.start}..${range.end})`);
      if (range.start > lineCount)
        throw invalidArgument(`the range starts at line ${range.start}, but the text has ${lineCount} lines`);
      const lastLine = Math.min(range.end, lineCount);
      span = {
        start: starts[range.start - 1] as number,
        end: lastLine < lineCount ? (starts[lastLine] as number) : text.length,
      };
      break;
    }
    case "node": {
      const section = parseOutline(text).find((candidate) => candidate.nodeId === range.nodeId);
      if (section === undefined) throw noSuchNode(range.nodeId);
      span = { start: section.start, end: section.end };
      heading = section.heading;
      break;
    }
  }
  const truncated = span.end - span.start > maxChars;
  if (truncated) span = { start: span.start, end: safeEnd(text, span.start + maxChars, span.start) };
  return { span, startLine: lineOf(starts, span.start), endLine: lastLineOf(starts, span), truncated, heading };
}
