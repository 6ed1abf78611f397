/**
 * Metadata conditions of the shared search filter: the sixteen operators, the
 * key or dotted path they read, and the checks that make a condition valid
 * (the operand suits the operator, `case_sensitive` only where strings are
 * compared). No SQL here (see filters/metadata-condition-sql.ts).
 */
import { invalidArgument, metadataOperators, type MetadataOperator } from "@context-hub/common";
import type { JsonValue } from "./entry-values.js";
import { checkMetadataShape, limits as entryLimits } from "./field-validation.js";

export { metadataOperators, type MetadataOperator };

/** The operators that compare strings, and so take `case_sensitive`. */
export const caseOperators: readonly MetadataOperator[] = [
  "eq",
  "ne",
  "in",
  "not_in",
  "contains",
  "starts_with",
  "ends_with",
  "array_contains",
];

/** The operators that take no value (exists takes one optionally). */
const valuelessOperators: readonly MetadataOperator[] = ["not_exists", "is_null", "is_not_null"];

export interface MetadataCondition {
  /** The key as given: a top-level key, or a dotted path. */
  key: string;
  /** The key's segments when it is a dotted path ("a.b" → ["a", "b"]); empty for a plain key. */
  path: string[];
  operator: MetadataOperator;
  /** Undefined only for the operators that take no value, and `exists` without one (present and not null). */
  value: JsonValue | undefined;
  /** Undefined: the operator's default (contains folds case; every other string comparison is exact). */
  caseSensitive: boolean | undefined;
}

/** A metadata condition as a caller submits it (before validation). */
export interface MetadataConditionInput {
  key: string;
  operator: MetadataOperator;
  value: JsonValue | undefined;
  caseSensitive?: boolean | undefined;
}

/** Most elements an `in` / `not_in` list may hold. */
export const maxListValues = 100;

function hasNul(value: JsonValue): boolean {
  if (typeof value === "string") return value.includes("\u0000");
  if (Array.isArray(value)) return value.some(hasNul);
  if (value !== null && typeof value === "object")
    return Object.entries(value).some(([key, inner]) => key.includes("\u0000") || hasNul(inner));
  return false;
}

const isScalar = (value: JsonValue): boolean => value === null || typeof value !== "object";

/** Checks that `value` suits `operator`; INVALID_ARGUMENT naming `field` otherwise. */
function validateOperand(
  operator: MetadataOperator,
  value: JsonValue | undefined,
  field: string,
): JsonValue | undefined {
  if (valuelessOperators.includes(operator)) {
    if (value !== undefined && value !== null)
      throw invalidArgument(`${field}.value must be left out for ${operator}, which takes no value`);
    return undefined;
  }
  if (operator === "exists") {
    if (value === undefined || value === null) return undefined;
    if (typeof value !== "boolean")
      throw invalidArgument(
        `${field}.value must be left out (present and not null), true (the key is present) or false (absent) for exists`,
      );
    return value;
  }
  if (value === undefined) throw invalidArgument(`${field}.value is required for ${operator}`);
  switch (operator) {
    case "gt":
    case "gte":
    case "lt":
    case "lte":
      if (typeof value !== "number" && typeof value !== "string")
        throw invalidArgument(`${field}.value must be a number or a string for ${operator}`);
      return value;
    case "in":
    case "not_in":
      if (!Array.isArray(value) || value.length === 0 || value.length > maxListValues) {
        throw invalidArgument(`${field}.value must be a list of 1 to ${maxListValues} values for ${operator}`);
      }
      return value;
    case "contains":
      if (!isScalar(value) || value === "")
        throw invalidArgument(`${field}.value must be a non-empty string, a number, a boolean or null for contains`);
      return value;
    case "starts_with":
    case "ends_with":
      if (typeof value !== "string" || value === "")
        throw invalidArgument(`${field}.value must be a non-empty string for ${operator}`);
      return value;
    case "array_contains":
      if (value === null || typeof value === "object")
        throw invalidArgument(
          `${field}.value must be a string, a number or a boolean for array_contains (the element to find)`,
        );
      return value;
    case "eq":
    case "ne":
    case "not_exists":
    case "is_null":
    case "is_not_null":
      return value;
  }
}

/** The segments of a dotted key; INVALID_ARGUMENT naming `field` when a segment is empty or the path is too deep. */
function pathOf(key: string, field: string): string[] {
  if (!key.includes(".")) return [];
  const segments = key.split(".");
  if (segments.some((segment) => segment.length === 0)) {
    throw invalidArgument(
      `${field}.key ${JSON.stringify(key.slice(0, 80))}: a dotted path needs a name before, between and after its dots`,
    );
  }
  if (segments.length > entryLimits.metadataDepth)
    throw invalidArgument(
      `${field}.key: a dotted path has at most ${entryLimits.metadataDepth} names (got ${segments.length})`,
    );
  return segments;
}

/**
 * Checks and normalises one metadata condition: the key (1 to the key limit
 * in characters, no NUL, a dotted path with no empty name), the value against
 * the operator (a number or string for ordering, a list for `in`, none for
 * `is_null`, …), and `case_sensitive` only on operators that compare strings.
 */
export function validateMetadataCondition(condition: MetadataConditionInput, field: string): MetadataCondition {
  if (condition.key.length === 0 || condition.key.length > entryLimits.metadataKeyLength) {
    throw invalidArgument(`${field}.key must be 1 to ${entryLimits.metadataKeyLength} characters`);
  }
  if (condition.key.includes("\u0000")) throw invalidArgument(`${field}.key must not contain NUL characters`);
  const path = pathOf(condition.key, field);
  if (condition.value !== undefined) {
    checkMetadataShape(condition.value, `${field}.value`);
    if (hasNul(condition.value)) throw invalidArgument(`${field}.value must not contain NUL characters`);
  }
  const value = validateOperand(condition.operator, condition.value, field);
  if (condition.caseSensitive !== undefined && !caseOperators.includes(condition.operator)) {
    throw invalidArgument(
      `${field}.case_sensitive applies only to operators that compare strings (${caseOperators.join(", ")}), not to ${condition.operator}`,
    );
  }
  return { key: condition.key, path, operator: condition.operator, value, caseSensitive: condition.caseSensitive };
}
