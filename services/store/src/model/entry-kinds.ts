/**
 * What an entry is: its kind (note, document, prompt, plan, report, memory,
 * or one the store's configuration adds) and its optional title, and the
 * checks a write and a filter hold them to.
 */
import { entryLimits, invalidArgument } from "@context-hub/common";
import { hasNul } from "./field-validation.js";

/** The kinds every store knows, whatever its configuration adds. */
export const builtInEntryKinds: readonly string[] = Object.freeze([
  "note",
  "document",
  "prompt",
  "plan",
  "report",
  "memory",
]);

/** The kind of an entry written without one, and of every entry written before kinds existed. */
export const defaultEntryKind = "note";

/**
 * Kinds no caller may write: `memory` is the kind of the store's memories'
 * mirror entries (put_memory writes them; the search tools find memories by
 * it), and an entry claiming it would pass for one.
 */
export const memoryMirrorKind = "memory";
export const reservedEntryKinds: readonly string[] = Object.freeze([memoryMirrorKind]);

/** A kind's name: a lowercase letter, then up to 31 lowercase letters, digits, `_` or `-` (the column's CHECK). */
export const entryKindPattern = /^[a-z][a-z0-9_-]{0,31}$/;

/** The kinds a store accepts: the built-in ones, then the configured ones, each once. */
export function toEntryKinds(configured: readonly string[]): readonly string[] {
  return Object.freeze([...new Set([...builtInEntryKinds, ...configured])]);
}

/** Kinds a caller may write, in the order an error lists them. */
function writableKinds(kinds: readonly string[]): string[] {
  return kinds.filter((kind) => !reservedEntryKinds.includes(kind));
}

/**
 * The kind of a write: absent or empty is `note`; otherwise one of `kinds`
 * (trimmed and lowercased, as tags are) that is not reserved. Throws
 * INVALID_ARGUMENT naming the kinds a caller may write.
 */
export function validateEntryKind(value: string | undefined, kinds: readonly string[], field: string): string {
  const kind = (value ?? "").trim().toLowerCase();
  if (kind === "") return defaultEntryKind;
  const allowed = writableKinds(kinds);
  if (reservedEntryKinds.includes(kind))
    throw invalidArgument(
      `${field} ${JSON.stringify(kind)} is reserved for the store's memories (put_memory); use one of ${allowed.join(", ")}`,
    );
  if (!allowed.includes(kind))
    throw invalidArgument(
      `${field} ${JSON.stringify((value ?? "").slice(0, entryLimits.kindChars + 8))} is not a kind this store accepts; use one of ${allowed.join(", ")}`,
      "an operator adds kinds with STORE_ENTRY_KINDS",
    );
  return kind;
}

/**
 * The kinds a filter names: each a well-formed kind name (trimmed and
 * lowercased), at most 20, de-duplicated. Any well-formed name is accepted,
 * configured or not, so that entries of a kind a later configuration dropped
 * can still be found; a kind no entry has matches nothing.
 */
export function validateKindFilter(values: readonly string[], field: string): string[] {
  if (values.length > entryLimits.filterKinds)
    throw invalidArgument(`${field}: at most ${entryLimits.filterKinds} kinds (got ${values.length})`);
  const kinds: string[] = [];
  values.forEach((raw, index) => {
    const kind = raw.trim().toLowerCase();
    if (!entryKindPattern.test(kind))
      throw invalidArgument(
        `${field}[${index}] ${JSON.stringify(raw.slice(0, entryLimits.kindChars + 8))} is not a kind name: a lowercase letter, then up to ${entryLimits.kindChars - 1} lowercase letters, digits, "_" or "-"`,
      );
    if (!kinds.includes(kind)) kinds.push(kind);
  });
  return kinds;
}

/**
 * A title as written: trimmed, one line, at most 300 characters, no NUL.
 * Empty (or only whitespace) is no title: undefined.
 */
export function validateTitle(value: string | undefined, field: string): string | undefined {
  if (value === undefined) return undefined;
  const title = value.trim();
  if (title === "") return undefined;
  if (title.length > entryLimits.titleChars)
    throw invalidArgument(`${field} is ${title.length} characters; the limit is ${entryLimits.titleChars}`);
  if (hasNul(title)) throw invalidArgument(`${field} must not contain NUL characters`);
  if (/[\r\n\u2028\u2029]/.test(title)) throw invalidArgument(`${field} must be one line (no line breaks)`);
  return title;
}

/** A title prefix of a filter: trimmed; empty filters nothing; otherwise held to a title's limits. */
export function validateTitlePrefix(value: string | undefined, field: string): string | undefined {
  return validateTitle(value, field);
}
