/**
 * Stored content is data, not instructions. In the text a model reads, each
 * stored entry's text is fenced with markers naming the entry, who wrote it
 * and its trust state, and markers forged inside stored strings are
 * neutralised so stored text cannot appear to end its own fence. This is a
 * layer of defence, not a proof: a model may still follow what it reads.
 * The structured content of a result stays raw JSON.
 */

export const openMarker = "<<<UNTRUSTED_DATA";
export const closeMarker = "<<<END_UNTRUSTED_DATA";

/**
 * Fields that hold stored text, or text derived from it, on any object that
 * has a string `id`: such an object is a stored entry (a full entry, a
 * listing, a search hit, a connector document). Tools that return stored
 * text return it in one of these fields of an object with the entry's id.
 */
export const storedTextFields = ["text", "preview", "summary", "title", "snippet"] as const;

type StoredEntry = Record<string, unknown> & { id: string };

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value);

/** Whether a value is an entry-shaped object: a string id and at least one stored-text field. */
export function isStoredEntry(value: unknown): value is StoredEntry {
  return isObject(value) && typeof value.id === "string" && storedTextFields.some((field) => typeof value[field] === "string");
}

// Look-alike brackets and invisible characters a forger could use to make a marker a model still reads as one.
const openBracket = "[<\\uFF1C\\uFE64\\u2039\\u227A\\u3008]";
const gap = "[\\s\\u00AD\\u200B-\\u200F\\u2060\\uFEFF]*";
const forgedMarker = new RegExp(`${openBracket}${gap}${openBracket}${gap}${openBracket}(?=${gap}\\/?${gap}(?:END${gap}[_-]?${gap})?UNTRUSTED${gap}[_-]?${gap}DATA)`, "giu");

/** Rewrites anything in `text` that could pass for a fence marker, so only the gateway's own markers remain markers. */
export function neutraliseMarkers(text: string): string {
  return text.replace(forgedMarker, "[[[");
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

/** Fences one stored string of an entry: the marker names the entry id, its source and, when known, its trust state. */
export function fenceStoredText(text: string, entry: StoredEntry): string {
  const id = attribute(entry.id);
  const attributes = [`entry=${id}`];
  const described = describedBy(entry);
  const source = attribute(described.source);
  if (source !== "") attributes.push(`source=${source}`);
  const trust = attribute(described.trust_state);
  if (trust !== "") attributes.push(`trust=${trust}`);
  return `${openMarker} ${attributes.join(" ")}>>>\n${neutraliseMarkers(text)}\n${closeMarker} entry=${id}>>>`;
}

/** Every string inside a stored entry (thread ids, tags, metadata, headings) is stored data too: neutralise it, keys included. */
function neutraliseAll(value: unknown): unknown {
  if (typeof value === "string") return neutraliseMarkers(value);
  if (Array.isArray(value)) return value.map(neutraliseAll);
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([key, inner]) => [neutraliseMarkers(key), neutraliseAll(inner)]));
  return value;
}

/** Fences the stored-text fields of `entry` as the text of the entry `identity` describes; every other string in it is neutralised. */
function fenceEntry(entry: Record<string, unknown>, identity: StoredEntry): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(entry).map(([key, inner]) => [
      neutraliseMarkers(key),
      (storedTextFields as readonly string[]).includes(key) && typeof inner === "string" && inner !== "" ? fenceStoredText(inner, identity) : neutraliseAll(inner),
    ]),
  );
}

/**
 * An entry's history (get_context_history): its `versions` hold stored text
 * but carry no id of their own; they belong to the entry named by
 * `context_id`.
 */
const isHistory = (value: Record<string, unknown>): value is Record<string, unknown> & { context_id: string; versions: unknown[] } =>
  typeof value.context_id === "string" && Array.isArray(value.versions);

function render(value: unknown): unknown {
  if (typeof value === "string") return neutraliseMarkers(value);
  if (Array.isArray(value)) return value.map(render);
  if (!isObject(value)) return value;
  if (isStoredEntry(value)) return fenceEntry(value, value);
  if (isHistory(value)) {
    const { context_id: id } = value;
    // A version's own trust state names it; its metadata (the caller's data) never does, so it is not passed on.
    const versions = value.versions.map((version) => (isObject(version) ? fenceEntry(version, { id, trust_state: version.trust_state }) : render(version)));
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [neutraliseMarkers(key), key === "versions" ? versions : render(inner)]));
  }
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [neutraliseMarkers(key), render(inner)]));
}

/**
 * The text rendering of a tool result for a model: the result's JSON, in
 * which every stored entry's text fields (and each version's, in a history)
 * are fenced, and forged markers are neutralised in every other string and
 * key — thread ids, tags, metadata, audit details, grep lines, and the
 * gateway's own messages alike. Results without stored data render as their
 * plain JSON. The structured content is left raw (see docs/security.md).
 */
export function renderForModel(structured: Record<string, unknown>): string {
  return JSON.stringify(render(structured), null, 2);
}
