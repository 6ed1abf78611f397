/**
 * Stored content is data, not instructions. In the text a model reads, each
 * stored string of an entry is fenced with markers naming the entry, who
 * wrote it and its trust state. Both markers carry a nonce drawn at random
 * for each result, so stored text, written before the result existed, cannot
 * spell a marker that closes its fence: a fence ends only at the closing
 * marker with its opening marker's nonce. Anything in stored strings that
 * could pass for a marker is neutralised as well. This is a layer of
 * defence, not a proof: a model may still follow what it reads. The
 * structured content of a result stays raw JSON.
 */

import { randomBytes } from "node:crypto";
import { foldCodePoint } from "@context-hub/common";

export const openMarker = "<<<UNTRUSTED_DATA";
export const closeMarker = "<<<END_UNTRUSTED_DATA";

/** A fresh nonce for the fences of one result: 64 random bits as 16 hex digits. */
export function createFenceNonce(): string {
  return randomBytes(8).toString("hex");
}

/**
 * Fields that hold stored text on any object that has a string `id`: such an
 * object is a stored entry (a full entry, a listing, a search hit, a grep
 * match, a range read, a connector document).
 */
export const storedTextFields = ["text", "preview", "summary", "title", "snippet"] as const;

/**
 * Fields that hold stored text or text derived from it, fenced wherever they
 * sit inside an entry (or an entry's history), under that entry's markers:
 * the stored-text fields, outline headings and heading paths, grep context
 * lines, full-text highlight fragments (`text` of a highlight), node
 * summaries, a reviewer's note, a deletion reason, and a handoff's next
 * steps, open questions and outcome. A field holding a list of strings has
 * each string fenced.
 */
export const derivedTextFields: readonly string[] = [
  ...storedTextFields,
  "heading",
  "path",
  "before",
  "after",
  "review_note",
  "reason",
  "next_steps",
  "open_questions",
  "outcome",
];

type StoredEntry = Record<string, unknown> & { id: string };

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/** Whether a value is an entry-shaped object: a string id and at least one stored-text field. */
export function isStoredEntry(value: unknown): value is StoredEntry {
  return (
    isObject(value) &&
    typeof value.id === "string" &&
    storedTextFields.some((field) => typeof value[field] === "string")
  );
}

/*
 * A forged marker is recognised on the text as a reader sees it: each
 * character folded to its confusable skeleton (look-alike brackets and
 * letters of other scripts, full-width forms and accents become ASCII;
 * invisible characters and combining marks vanish), letters lower-cased, and
 * whitespace and separators (_ - . dashes, dots) skipped. What is left must
 * read "<<<", an optional "/", an optional "end", then "untrusteddata".
 */
const forgedShapes = ["<<<untrusteddata", "<<</untrusteddata", "<<<enduntrusteddata", "<<</enduntrusteddata"];
const longestShape = Math.max(...forgedShapes.map((shape) => shape.length));
const gapCharacter = /^[\s_.\p{Pd}\u00B7\u2022\u2027\u30FB]$/u;
const plainAscii = /^[\x00-\x3B\x3D-\x7F]*$/;

/**
 * Rewrites anything in `text` that could pass for a fence marker — look-alike
 * brackets, letters of other scripts, invisible characters, any spacing or
 * separators — turning its three brackets into `[[[`. One pass over the text
 * with a window of the last few significant characters: linear in its length.
 */
export function neutraliseMarkers(text: string): string {
  // Most strings hold no "<" at all and only ASCII: nothing can fold into a marker.
  if (plainAscii.test(text)) return text;
  // The last `longestShape` significant folded characters, each with where its source character starts and ends.
  const window: Significant[] = [];
  const rewrites = new Map<number, { end: number; brackets: number }>();
  for (let index = 0; index < text.length; ) {
    const codePoint = text.codePointAt(index)!;
    const end = index + (codePoint > 0xffff ? 2 : 1);
    const folded = foldCodePoint(text.slice(index, end));
    for (const character of folded) {
      if (gapCharacter.test(character)) continue;
      window.push({ character: character.toLowerCase(), start: index, end, rewritten: false });
      if (window.length > longestShape) window.shift();
      if (character === "a" || character === "A") markForgery(window, rewrites);
    }
    index = end;
  }
  if (rewrites.size === 0) return text;
  let out = "";
  let copied = 0;
  for (const [start, rewrite] of [...rewrites.entries()].sort(([a], [b]) => a - b)) {
    out += text.slice(copied, start) + "[".repeat(rewrite.brackets);
    copied = rewrite.end;
  }
  return out + text.slice(copied);
}

interface Significant {
  character: string;
  /** Where the source character starts and ends in the text. */
  start: number;
  end: number;
  /** Whether this character is already counted as a bracket to rewrite. */
  rewritten: boolean;
}

/** If the window ends with a marker's shape, counts its three brackets against their source characters. */
function markForgery(window: readonly Significant[], rewrites: Map<number, { end: number; brackets: number }>): void {
  for (const shape of forgedShapes) {
    if (window.length < shape.length) continue;
    const offset = window.length - shape.length;
    let same = true;
    for (let position = 0; position < shape.length && same; position += 1)
      same = window[offset + position]!.character === shape[position];
    if (!same) continue;
    for (const bracket of window.slice(offset, offset + 3)) {
      if (bracket.rewritten) continue;
      bracket.rewritten = true;
      // One source character may fold to several brackets ("\u00AB" reads "<<"): it becomes as many "[".
      const rewrite = rewrites.get(bracket.start) ?? { end: bracket.end, brackets: 0 };
      rewrite.brackets += 1;
      rewrites.set(bracket.start, rewrite);
    }
    return;
  }
}

/** A marker attribute value, reduced to characters that cannot break the marker. */
const attribute = (value: unknown) => (typeof value === "string" ? value.replace(/[^\w:.-]/g, "").slice(0, 64) : "");

/**
 * Where an entry's `source` and `trust_state` are: on the entry itself, or —
 * for a connector document, which has no top-level `source` — in the
 * `metadata` the gateway built for it. An entry with a top-level `source`
 * is never read from its `metadata`, which there is the caller's own data
 * and could claim any trust state.
 */
function describedBy(entry: StoredEntry): Record<string, unknown> {
  return entry.source === undefined && isObject(entry.metadata) ? entry.metadata : entry;
}

/**
 * Fences one stored string of an entry: both markers carry the result's
 * `nonce` and the entry id; the opening one also names the entry's source
 * and, when known, its trust state.
 */
export function fenceStoredText(text: string, entry: StoredEntry, nonce: string): string {
  const id = attribute(entry.id);
  const attributes = [`nonce=${nonce}`, `entry=${id}`];
  const described = describedBy(entry);
  const source = attribute(described.source);
  if (source !== "") attributes.push(`source=${source}`);
  const trust = attribute(described.trust_state);
  if (trust !== "") attributes.push(`trust=${trust}`);
  return `${openMarker} ${attributes.join(" ")}>>>\n${neutraliseMarkers(text)}\n${closeMarker} nonce=${nonce} entry=${id}>>>`;
}

/** Every string of caller data inside an entry (its metadata) is stored data too, but it is not fenced: neutralise it, keys included. */
function neutraliseAll(value: unknown): unknown {
  if (typeof value === "string") return neutraliseMarkers(value);
  if (Array.isArray(value)) return value.map(neutraliseAll);
  if (isObject(value))
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [neutraliseMarkers(key), neutraliseAll(inner)]),
    );
  return value;
}

/**
 * An entry's history (get_context_history): its `versions` hold stored text
 * but carry no id of their own; they belong to the entry named by
 * `context_id`.
 */
const isHistory = (
  value: Record<string, unknown>,
): value is Record<string, unknown> & { context_id: string; versions: unknown[] } =>
  typeof value.context_id === "string" && Array.isArray(value.versions);

/**
 * A collection (create_collection, get_collection, list_collections, …):
 * its name and description are stored text, written by its owner, whom a
 * grantee reads; they are fenced under the collection's id.
 */
const isCollection = (value: Record<string, unknown>): value is Record<string, unknown> & { collection_id: string } =>
  typeof value.collection_id === "string" && typeof value.name === "string";
const collectionTextFields: readonly string[] = ["name", "description"];

/** How one result is rendered: its nonce, and the entry whose text the value at hand belongs to, if any. */
interface Rendering {
  nonce: string;
  owner?: StoredEntry | undefined;
}

/** A derived-text field's value: a non-empty string, or each non-empty string of a list, fenced under the owning entry. */
function fenceField(value: unknown, rendering: Rendering & { owner: StoredEntry }): unknown {
  if (typeof value === "string") return value === "" ? value : fenceStoredText(value, rendering.owner, rendering.nonce);
  if (Array.isArray(value)) return value.map((item) => fenceField(item, rendering));
  return render(value, rendering);
}

/**
 * The fields of an object that belongs to `owner` (the entry itself, or an
 * object nested in it: an outline node, a node summary, a highlight, a
 * version): derived-text fields are fenced, metadata (the caller's data) is
 * neutralised, and everything else is rendered on, still owned by the entry.
 */
function renderOwned(
  value: Record<string, unknown>,
  rendering: Rendering & { owner: StoredEntry },
): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [
      neutraliseMarkers(key),
      derivedTextFields.includes(key)
        ? fenceField(inner, rendering)
        : key === "metadata"
          ? neutraliseAll(inner)
          : render(inner, rendering),
    ]),
  );
}

function render(value: unknown, rendering: Rendering): unknown {
  if (typeof value === "string") return neutraliseMarkers(value);
  if (Array.isArray(value)) return value.map((item) => render(item, rendering));
  if (!isObject(value)) return value;
  const { nonce } = rendering;
  if (isStoredEntry(value)) return renderOwned(value, { nonce, owner: value });
  if (isHistory(value)) {
    const owner = { id: value.context_id };
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [
        neutraliseMarkers(key),
        key === "versions"
          ? // A version's own trust state names it; its metadata (the caller's data) never does, so it is not passed on.
            value.versions.map((version) =>
              isObject(version)
                ? renderOwned(version, { nonce, owner: { ...owner, trust_state: version.trust_state } })
                : render(version, { nonce, owner }),
            )
          : render(inner, { nonce, owner }),
      ]),
    );
  }
  if (rendering.owner !== undefined) return renderOwned(value, { nonce, owner: rendering.owner });
  if (isCollection(value)) {
    const owner = { id: value.collection_id };
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [
        neutraliseMarkers(key),
        collectionTextFields.includes(key) ? fenceField(inner, { nonce, owner }) : render(inner, rendering),
      ]),
    );
  }
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [neutraliseMarkers(key), render(inner, rendering)]),
  );
}

/**
 * The text rendering of a tool result for a model: the result's JSON, in
 * which every stored string of every entry (and of each version, in a
 * history) is fenced under markers carrying `nonce` — the entry's text,
 * preview, summary, title and snippet, and what is derived from them:
 * outline headings and paths, node summaries, grep context lines, highlight
 * fragments, review notes, deletion reasons — and forged markers are
 * neutralised in every other string and key: thread ids, tags, metadata,
 * audit details, and the gateway's own messages alike. Results without
 * stored data render as their plain JSON. The nonce is fresh for each result
 * unless given. The structured content is left raw (see docs/security.md).
 */
export function renderForModel(structured: Record<string, unknown>, nonce: string = createFenceNonce()): string {
  return JSON.stringify(render(structured, { nonce }), null, 2);
}
