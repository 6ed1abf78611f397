/**
 * Full-text search in the domain's terms: the query modes, the languages a
 * query may be parsed in, how raw input becomes a tsquery that can never be
 * a syntax error, and how highlighted fragments are read back. No SQL here.
 */
import { invalidArgument } from "@context-hub/common";

export const fullTextModes = ["match", "prefix", "phrase", "boolean", "any"] as const;

/**
 * - `match`: every word (plainto_tsquery);
 * - `prefix`: every word as a prefix, built from sanitised words (`config` finds `configuration`);
 * - `phrase`: the words adjacent and in order (phraseto_tsquery);
 * - `boolean`: web-search syntax, `"phrases"`, `OR`, `-excluded` (websearch_to_tsquery);
 * - `any`: at least one word (an OR of sanitised words).
 *
 * Every mode is ranked by BM25 (docs/retrieval.md).
 */
export type FullTextMode = (typeof fullTextModes)[number];

/** The text-search configurations PostgreSQL ships (pg_catalog); a store only offers those its database has. */
export const builtinTextSearchLanguages = [
  "simple",
  "arabic",
  "armenian",
  "basque",
  "catalan",
  "danish",
  "dutch",
  "english",
  "estonian",
  "finnish",
  "french",
  "german",
  "greek",
  "hindi",
  "hungarian",
  "indonesian",
  "irish",
  "italian",
  "lithuanian",
  "nepali",
  "norwegian",
  "portuguese",
  "romanian",
  "russian",
  "serbian",
  "spanish",
  "swedish",
  "tamil",
  "turkish",
  "yiddish",
] as const;

/** What a text-search language name must look like before it goes anywhere near the database. */
export const languageNamePattern = /^[a-z_]{1,63}$/;

/** Longest full-text query accepted, in characters. */
export const maxQueryLength = 1_000;

/** Most distinct words a prefix or any-word query keeps (further new words are dropped; repeats of kept ones are not). */
export const maxQueryWords = 100;

/** Longest word a prefix or any-word query keeps, in characters (longer words are cut). */
const maxWordLength = 64;

const wordPattern = /[\p{L}\p{N}\p{M}]+/gu;

/**
 * The words of a query stripped of everything that is not a letter, digit or
 * combining mark, in order and with their repeats (a word the query repeats
 * weighs more in the ranking), at most 64 characters each, of at most 100
 * distinct words (case-insensitively); words beyond those 100 are dropped.
 * What remains cannot carry tsquery syntax.
 */
export function toQueryWords(query: string): string[] {
  const kept = new Set<string>();
  const words: string[] = [];
  for (const match of query.normalize("NFC").matchAll(wordPattern)) {
    const word = Array.from(match[0]).slice(0, maxWordLength).join("");
    const key = word.toLowerCase();
    if (!kept.has(key)) {
      if (kept.size === maxQueryWords) continue;
      kept.add(key);
    }
    words.push(word);
  }
  return words;
}

/**
 * The input of `to_tsquery` for the prefix (`'word':* & …`) and any-word
 * (`'word' | …`) modes, built only from `toQueryWords`, so no input can make
 * it a syntax error; `to_tsquery` then normalises each word in the query's
 * language (stemming, stop words). Empty when the query has no words.
 */
export function toLexemeQuery(query: string, mode: "prefix" | "any"): string {
  const words = toQueryWords(query);
  return words.map((word) => (mode === "prefix" ? `'${word}':*` : `'${word}'`)).join(mode === "prefix" ? " & " : " | ");
}

/** Checks a full-text query: 1–1000 characters, not blank, no NUL. */
export function validateFullTextQuery(query: string, field = "query"): string {
  if (query.trim().length === 0) throw invalidArgument(`${field} must not be empty`);
  if (query.length > maxQueryLength)
    throw invalidArgument(`${field} is ${query.length} characters; the limit is ${maxQueryLength}`);
  if (query.includes("\u0000")) throw invalidArgument(`${field} must not contain NUL characters`);
  return query;
}

/**
 * The language a query is parsed in: the store's configured one when the
 * caller names none, else one of `allowed`; anything else is
 * INVALID_ARGUMENT listing the choices.
 */
export function chooseQueryLanguage(requested: string, configured: string, allowed: readonly string[]): string {
  if (requested === "") return configured;
  if (!languageNamePattern.test(requested) || !allowed.includes(requested)) {
    throw invalidArgument(
      `language ${JSON.stringify(requested.slice(0, 64))} is not offered; choose one of: ${allowed.join(", ")}`,
    );
  }
  return requested;
}

/** Marks ts_headline is asked to put around matches and between fragments: control characters stripped from the text beforehand, so they cannot be forged by content. */
export const highlightMarks = { start: "\u0002", stop: "\u0003", fragment: "\u001f" } as const;

/** The ts_headline options: up to three fragments of 6–24 words. */
export const headlineOptions = `StartSel="${highlightMarks.start}", StopSel="${highlightMarks.stop}", MaxFragments=3, MinWords=6, MaxWords=24, FragmentDelimiter="${highlightMarks.fragment}"`;

/** How much of a text highlighting reads; matches further in are not shown (ranking still sees the whole text). */
export const highlightTextLimit = 100_000;

export interface Highlight {
  text: string;
  /** Spans of `text` (UTF-16 code units) that matched. */
  matches: { start: number; end: number }[];
}

/**
 * Reads ts_headline output back into fragments with match spans. Fragments
 * are separated by the fragment mark, matches enclosed by the start and
 * stop marks; whitespace at a fragment's ends is trimmed.
 */
export function parseHeadline(headline: string): Highlight[] {
  const fragments: Highlight[] = [];
  for (const raw of headline.split(highlightMarks.fragment)) {
    // The text between marks is copied in slices: appending it a character at a time grows worse than linearly on long texts.
    const parts: string[] = [];
    let length = 0;
    let from = 0;
    const matches: Highlight["matches"] = [];
    let open: number | undefined;
    for (let at = 0; at <= raw.length; at++) {
      const char = raw.charAt(at);
      if (at < raw.length && char !== highlightMarks.start && char !== highlightMarks.stop) continue;
      parts.push(raw.slice(from, at));
      length += at - from;
      from = at + 1;
      if (char === highlightMarks.start) open = length;
      else if (char === highlightMarks.stop) {
        if (open !== undefined && length > open) matches.push({ start: open, end: length });
        open = undefined;
      }
    }
    const text = parts.join("");
    const leading = text.length - text.trimStart().length;
    const trimmed = text.trim();
    if (trimmed === "") continue;
    fragments.push({
      text: trimmed,
      matches: matches
        .map((match) => ({ start: match.start - leading, end: Math.min(trimmed.length, match.end - leading) }))
        .filter((match) => match.start >= 0 && match.end > match.start),
    });
  }
  return fragments;
}
