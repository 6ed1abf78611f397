/**
 * Checking an answer's citations against the evidence it was given: a
 * citation must name a passage that was retrieved and quote words found in
 * that passage (case and runs of whitespace aside). A citation that fails is
 * dropped and reported; a statement left with no citation is dropped too, so
 * every statement returned rests on a quote the caller can read at its place.
 */
import type { DraftAnswer } from "@context-hub/text";

/** One passage of evidence, numbered from 1 in the order it was sent. */
export interface EvidencePassage {
  entryId: string;
  nodeId: string;
  /** Where the passage sits in its entry's text (UTF-16 code units, end exclusive). */
  start: number;
  end: number;
  text: string;
}

/** A checked citation: its number in the answer, the passage and where the quote sits in the entry. */
export interface CheckedCitation {
  number: number;
  /** 1-based position of the passage in the evidence. */
  passage: number;
  quote: string;
  quoteStart: number;
  quoteEnd: number;
}

/** A citation, or a whole statement (passage null), that did not hold; the statement by its 1-based position in the draft. */
export interface DroppedCitation {
  statement: number;
  passage: number | null;
  reason: string;
}

export interface CheckedAnswer {
  statements: { text: string; citations: number[] }[];
  citations: CheckedCitation[];
  dropped: DroppedCitation[];
}

/** A character a quote may be wrapped in that is not part of the words quoted: whitespace, quotation marks, dots. */
const isWrapping = (char: string) => /^[\s"'“”‘’«».…]$/.test(char);

/**
 * `quote` without its wrapping characters at either end. Scanned from each
 * end: a pattern for the trailing run is tried again at every character of
 * a long run inside the quote, quadratic in its length.
 */
function unwrapped(quote: string): string {
  let start = 0;
  let end = quote.length;
  while (start < end && isWrapping(quote.charAt(start))) start += 1;
  while (end > start && isWrapping(quote.charAt(end - 1))) end -= 1;
  return quote.slice(start, end);
}

/** `text` with runs of whitespace as one space and letters lower-cased, and where each of its characters came from. */
function folded(text: string): { text: string; origin: number[] } {
  let out = "";
  const origin: number[] = [];
  let space = false;
  for (let index = 0; index < text.length; index++) {
    const char = text.charAt(index);
    if (/\s/.test(char)) {
      space = out.length > 0;
      continue;
    }
    if (space) {
      out += " ";
      origin.push(index);
      space = false;
    }
    out += char.toLowerCase();
    origin.push(index);
  }
  return { text: out, origin };
}

/**
 * Where `quote` sits in `text` ([start, end) offsets into `text`), ignoring
 * case, runs of whitespace and quotation marks or ellipses around it;
 * undefined when it is not there or holds no words.
 */
export function findQuote(text: string, quote: string): { start: number; end: number } | undefined {
  const wanted = folded(unwrapped(quote)).text;
  if (!/[\p{L}\p{N}]/u.test(wanted)) return undefined;
  const haystack = folded(text);
  const at = haystack.text.indexOf(wanted);
  if (at < 0) return undefined;
  const start = haystack.origin[at] ?? 0;
  const end = (haystack.origin[at + wanted.length - 1] ?? start) + 1;
  return { start, end };
}

/**
 * The statements of `draft` whose citations hold, each citing numbered
 * citations (numbered in order of first use; the same quote of the same
 * passage is one citation), and every citation or statement dropped with
 * the reason.
 */
export function checkCitations(draft: DraftAnswer, evidence: readonly EvidencePassage[]): CheckedAnswer {
  const citations: CheckedCitation[] = [];
  const dropped: DroppedCitation[] = [];
  const statements: CheckedAnswer["statements"] = [];
  for (const [index, statement] of draft.statements.entries()) {
    const position = index + 1;
    const numbers: number[] = [];
    for (const citation of statement.citations) {
      const passage = evidence[citation.passage - 1];
      if (passage === undefined) {
        dropped.push({
          statement: position,
          passage: citation.passage,
          reason: `passage ${citation.passage} was not in the evidence (${evidence.length} passages)`,
        });
        continue;
      }
      const found = findQuote(passage.text, citation.quote);
      if (found === undefined) {
        dropped.push({
          statement: position,
          passage: citation.passage,
          reason: `the quote is not in passage ${citation.passage}`,
        });
        continue;
      }
      const quoteStart = passage.start + found.start;
      const quoteEnd = passage.start + found.end;
      let checked = citations.find(
        (known) => known.passage === citation.passage && known.quoteStart === quoteStart && known.quoteEnd === quoteEnd,
      );
      if (checked === undefined) {
        checked = {
          number: citations.length + 1,
          passage: citation.passage,
          quote: passage.text.slice(found.start, found.end),
          quoteStart,
          quoteEnd,
        };
        citations.push(checked);
      }
      if (!numbers.includes(checked.number)) numbers.push(checked.number);
    }
    if (numbers.length === 0) {
      const reason = statement.citations.length === 0 ? "it cites nothing" : "none of its citations holds";
      dropped.push({ statement: position, passage: null, reason });
      continue;
    }
    statements.push({ text: statement.text, citations: numbers });
  }
  return { statements, citations, dropped };
}
