import { invalidArgument } from "@context-hub/common";

/** The shortest and longest id prefix accepted, in hex digits. */
export const minPrefixLength = 8;
export const maxPrefixLength = 31;

/**
 * One id a caller asked for, as a range of the uuid key space: a full id is
 * the range [id, id]; a prefix covers every id that starts with it. A range
 * on the primary key is what lets a prefix resolve without scanning.
 */
export interface IdQuery {
  /** The id exactly as the caller wrote it (reported back in `missing`). */
  input: string;
  isPrefix: boolean;
  lower: string;
  upper: string;
}

function toUuid(hex: string): string {
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/**
 * Parses a requested id: a full UUID (32 hex digits) or a prefix of 8 to 31
 * hex digits. Case does not matter and hyphens are ignored wherever they
 * stand, so `0190c2a4-5b` and `0190C2A45B` are the same prefix. Anything else
 * is INVALID_ARGUMENT naming the field (e.g. `ids[3]`).
 */
export function toIdQuery(input: string, field: string): IdQuery {
  const hex = input.replace(/-/g, "").toLowerCase();
  if (!/^[0-9a-f]*$/.test(hex) || hex.length < minPrefixLength || hex.length > 32) {
    throw invalidArgument(
      `${field} ${JSON.stringify(input.slice(0, 64))} is not an entry id: give a full UUID or a prefix of ${minPrefixLength} to ${maxPrefixLength} hex digits`,
    );
  }
  return {
    input,
    isPrefix: hex.length < 32,
    lower: toUuid(hex.padEnd(32, "0")),
    upper: toUuid(hex.padEnd(32, "f")),
  };
}
