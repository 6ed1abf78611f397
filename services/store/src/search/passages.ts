/**
 * Passages for reranking: the part of an entry's text that best shows why it
 * matched a query. A window is placed where the query's words (stemmed, stop
 * words dropped) are densest, favouring windows that cover more distinct
 * words, and its edges are moved to word boundaries.
 */
import { isStopword, toStem } from "@context-hub/text";
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

/**
 * The best window of at most `maxChars` of `text` (within `region` when
 * given, e.g. a chunk) for `query`: where the most distinct query words
 * appear, then the most occurrences; the region's start when none do. The
 * window is trimmed of surrounding whitespace and never splits a word at an
 * edge when a boundary lies within reach.
 */
export function findPassage(text: string, query: string, maxChars: number, region?: TextSpan): PassageWindow {
  const lowest = Math.max(0, Math.min(region?.start ?? 0, text.length));
  const highest = Math.max(lowest, Math.min(region?.end ?? text.length, text.length));
  let start = lowest;
  let end = Math.min(highest, lowest + maxChars);
  if (highest - lowest > maxChars) {
    const stems = new Map(toQueryStems(query).map((stem, index) => [stem, index]));
    const hits = stems.size === 0 ? [] : findHits(text, lowest, Math.min(highest, lowest + passageScanLimit), stems);
    if (hits.length > 0) {
      // Two pointers over the hits: the window starting at hit i holds hits i..j-1.
      const counts = new Map<number, number>();
      let best = { score: -1, first: 0, last: 0 };
      let j = 0;
      for (let i = 0; i < hits.length; i++) {
        const first = hits[i] as Hit;
        while (j < hits.length && (hits[j] as Hit).end - first.start <= maxChars) {
          const term = (hits[j] as Hit).term;
          counts.set(term, (counts.get(term) ?? 0) + 1);
          j++;
        }
        const score = counts.size * 1_000_000 + (j - i);
        if (score > best.score) best = { score, first: i, last: j - 1 };
        const left = counts.get(first.term) ?? 0;
        if (left <= 1) counts.delete(first.term);
        else counts.set(first.term, left - 1);
      }
      const spanStart = (hits[best.first] as Hit).start;
      const spanEnd = (hits[Math.max(best.first, best.last)] as Hit).end;
      // Lead in with about a third of the spare room, so the matches sit in context.
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
