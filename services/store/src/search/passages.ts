/**
 * Passages for reranking: the part of an entry's text that best shows why it
 * matched a query. A window is placed where the query's words (stemmed, stop
 * words dropped) are densest, favouring windows that cover more distinct
 * words, and its edges are moved to word boundaries.
 */
import { isStopword, parseOutline, toStem } from "@context-hub/text";
import type { TextSpan } from "../model/entry-model.js";

export interface PassageWindow extends TextSpan {
  text: string;
}

/** How much of a region is searched for the query's words; a window beyond it is never chosen. */
export const passageScanLimit = 200_000;

/** How far an edge may move to reach a word boundary. */
const snapReach = 40;

const wordPattern = /[\p{L}\p{N}\p{M}]+(?:['’._-][\p{L}\p{N}\p{M}]+)*/gu;

/** The stems a passage looks for: the query's words, stop words dropped unless nothing else is left. */
export function toQueryStems(query: string): string[] {
  const words = (query.toLowerCase().match(wordPattern) ?? []).map((word) => word.normalize("NFC"));
  const content = words.filter((word) => !isStopword(word));
  return [...new Set((content.length > 0 ? content : words).map(toStem))];
}

interface Hit {
  start: number;
  end: number;
  term: number;
}

function findHits(text: string, from: number, to: number, stems: ReadonlyMap<string, number>): Hit[] {
  const hits: Hit[] = [];
  const pattern = new RegExp(wordPattern.source, "gu");
  pattern.lastIndex = from;
  for (let match = pattern.exec(text); match !== null && match.index < to; match = pattern.exec(text)) {
    const term = stems.get(toStem(match[0].toLowerCase().normalize("NFC")));
    if (term !== undefined) hits.push({ start: match.index, end: match.index + match[0].length, term });
  }
  return hits;
}

const isSpace = (code: number) => code === 32 || (code >= 9 && code <= 13) || code === 0xa0;
const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

/** Moves a window start forward to the next word start (within reach), unless it already is one. */
function snapStart(text: string, start: number, lowest: number): number {
  if (start <= lowest || isSpace(text.charCodeAt(start - 1))) return start;
  for (let at = start; at < Math.min(text.length, start + snapReach); at++)
    if (isSpace(text.charCodeAt(at))) return at + 1;
  return start;
}

/** Moves a window end back to just after a word (within reach), never splitting a surrogate pair. */
function snapEnd(text: string, end: number, highest: number, start: number): number {
  let cut = end;
  if (end < highest && !isSpace(text.charCodeAt(end))) {
    for (let at = end - 1; at > Math.max(start, end - snapReach); at--) {
      if (isSpace(text.charCodeAt(at))) {
        cut = at;
        break;
      }
    }
  }
  if (cut > start && isHighSurrogate(text.charCodeAt(cut - 1))) cut--;
  return cut;
}

/** The best run of hits a window of `maxChars` can hold: the most distinct query words, then the most hits. */
interface Run {
  /** Distinct words × 1,000,000 + hits: one more distinct word outweighs any number of repeats. */
  score: number;
  first: number;
  last: number;
}

/** Two pointers over `hits` (in text order): the window starting at hit i holds hits i..j-1. */
function bestRun(hits: readonly Hit[], maxChars: number): Run | undefined {
  if (hits.length === 0) return undefined;
  const counts = new Map<number, number>();
  let best: Run = { score: -1, first: 0, last: 0 };
  let j = 0;
  for (let i = 0; i < hits.length; i++) {
    const first = hits[i] as Hit;
    while (j < hits.length && (hits[j] as Hit).end - first.start <= maxChars) {
      const term = (hits[j] as Hit).term;
      counts.set(term, (counts.get(term) ?? 0) + 1);
      j++;
    }
    const score = counts.size * 1_000_000 + (j - i);
    if (score > best.score) best = { score, first: i, last: Math.max(i, j - 1) };
    const left = counts.get(first.term) ?? 0;
    if (left <= 1) counts.delete(first.term);
    else counts.set(first.term, left - 1);
  }
  return best;
}

/**
 * The window of at most `maxChars` within [lowest, highest) around the run
 * of hits `run` (at the region's start without one): led in with about a
 * third of the spare room so the matches sit in context, edges moved to
 * word boundaries, surrounding whitespace trimmed.
 */
function placeWindow(
  text: string,
  hits: readonly Hit[],
  run: Run | undefined,
  lowest: number,
  highest: number,
  maxChars: number,
): PassageWindow {
  let start = lowest;
  let end = Math.min(highest, lowest + maxChars);
  if (highest - lowest > maxChars) {
    if (run !== undefined) {
      const spanStart = (hits[run.first] as Hit).start;
      const spanEnd = (hits[run.last] as Hit).end;
      const slack = Math.max(0, maxChars - (spanEnd - spanStart));
      start = Math.max(lowest, spanStart - Math.floor(slack / 3));
      end = Math.min(highest, start + maxChars);
      start = Math.max(lowest, end - maxChars);
    }
    start = snapStart(text, start, lowest);
    end = snapEnd(text, end, highest, start);
  }
  while (start < end && isSpace(text.charCodeAt(start))) start++;
  while (end > start && isSpace(text.charCodeAt(end - 1))) end--;
  return { start, end, text: text.slice(start, end) };
}

/** The bounds a passage search runs in: the region (e.g. a chunk) clamped to the text, else the whole text. */
function regionOf(text: string, region: TextSpan | undefined): { lowest: number; highest: number } {
  const lowest = Math.max(0, Math.min(region?.start ?? 0, text.length));
  return { lowest, highest: Math.max(lowest, Math.min(region?.end ?? text.length, text.length)) };
}

/** The query's words in [lowest, highest), as far as the scan reaches. */
function queryHits(text: string, query: string, lowest: number, highest: number): Hit[] {
  const stems = new Map(toQueryStems(query).map((stem, index) => [stem, index]));
  return stems.size === 0 ? [] : findHits(text, lowest, Math.min(highest, lowest + passageScanLimit), stems);
}

/**
 * The best window of at most `maxChars` of `text` (within `region` when
 * given, e.g. a chunk) for `query`: where the most distinct query words
 * appear, then the most occurrences; the region's start when none do. The
 * window is trimmed of surrounding whitespace and never splits a word at an
 * edge when a boundary lies within reach.
 */
export function findPassage(text: string, query: string, maxChars: number, region?: TextSpan): PassageWindow {
  const { lowest, highest } = regionOf(text, region);
  const hits = highest - lowest > maxChars ? queryHits(text, query, lowest, highest) : [];
  return placeWindow(text, hits, bestRun(hits, maxChars), lowest, highest, maxChars);
}

/** A passage among several of one text, with how well it holds the query (distinct words, then hits). */
export interface RankedPassage extends PassageWindow {
  /** Distinct query words × 1,000,000 + their occurrences; 0 for a window holding none. */
  weight: number;
}

/**
 * Up to `count` windows of at most `maxChars` of `text` (within `region`
 * when given) that do not overlap, best first: the best window as
 * `findPassage` places it, then the best among the query words outside it,
 * and so on, each placed within the gap the earlier ones leave. Windows
 * after the first hold at least one query word; a text with none gives one
 * window at its start. Linear in the scanned text for each window.
 */
export function findPassages(
  text: string,
  query: string,
  maxChars: number,
  count: number,
  region?: TextSpan,
): RankedPassage[] {
  const { lowest, highest } = regionOf(text, region);
  const hits = queryHits(text, query, lowest, highest);
  const passages: RankedPassage[] = [];
  let gaps = [{ lowest, highest }];
  while (passages.length < count) {
    let best: { run: Run; hits: Hit[]; gap: { lowest: number; highest: number } } | undefined;
    for (const gap of gaps) {
      const inside = hits.filter((hit) => hit.start >= gap.lowest && hit.end <= gap.highest);
      const run = bestRun(inside, maxChars);
      if (run !== undefined && (best === undefined || run.score > best.run.score)) best = { run, hits: inside, gap };
    }
    if (best === undefined) {
      if (passages.length === 0)
        passages.push({ ...placeWindow(text, [], undefined, lowest, highest, maxChars), weight: 0 });
      break;
    }
    const window = placeWindow(text, best.hits, best.run, best.gap.lowest, best.gap.highest, maxChars);
    passages.push({ ...window, weight: best.run.score });
    const chosen = best.gap;
    // The window may have been trimmed inside its run's edges; the run's hits are taken either way.
    const takenTo = Math.max(window.end, (best.hits[best.run.last] as Hit).end);
    const takenFrom = Math.min(window.start, (best.hits[best.run.first] as Hit).start);
    gaps = gaps.flatMap((gap) =>
      gap !== chosen
        ? [gap]
        : [
            { lowest: gap.lowest, highest: takenFrom },
            { lowest: takenTo, highest: gap.highest },
          ].filter((part) => part.highest > part.lowest),
    );
  }
  return passages;
}

/**
 * A finder of the outline node an offset lies in: the deepest heading
 * section of `text` holding it, "" before the first heading. Only the text
 * before `reach` is parsed: a section's id depends only on the headings
 * before it, so a prefix gives the same ids.
 */
export function outlineNodeFinder(text: string, reach: number): (offset: number) => string {
  const sections = parseOutline(text.slice(0, Math.min(text.length, reach)));
  return (offset) => {
    let found = "";
    // Sections come in text order, a parent before its subsections: the last one holding the offset is the deepest.
    for (const section of sections) {
      if (section.start > offset) break;
      if (offset < section.end) found = section.nodeId;
    }
    return found;
  };
}
