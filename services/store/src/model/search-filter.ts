/**
 * The filter set every search and listing shares (full text, semantic,
 * hybrid legs, grep and search_context's listing): thread, source, tags (any
 * of / all of), metadata conditions with operators, a creation-time range,
 * the content type, the trust states to include, valid time (`valid_at`) and
 * transaction time (`as_of`). What a valid filter is, and the checks that
 * make it one. No SQL here (see search-filter-sql.ts).
 */
import { invalidArgument } from "@context-hub/common";
import type { ContentType, JsonValue, Source } from "./entry-values.js";
import { checkMetadataShape, limits as entryLimits, normaliseTags, validateThreadId } from "./field-validation.js";

export const metadataOperators = ["eq", "ne", "gt", "gte", "lt", "lte", "in", "not_in", "exists", "contains", "starts_with"] as const;

/** How a metadata condition compares an entry's top-level value with the given one. */
export type MetadataOperator = (typeof metadataOperators)[number];

export interface MetadataCondition {
  key: string;
  operator: MetadataOperator;
  value: JsonValue;
}

/** A validated search filter; absent fields do not filter. */
export interface SearchFilter {
  threadId: string | undefined;
  source: Source | undefined;
  /** At least one of these tags (normalised as on write). */
  tagsAny: string[];
  /** Every one of these tags. */
  tagsAll: string[];
  metadata: MetadataCondition[];
  /** created_from ≤ created_at < created_to. */
  createdFrom: Date | undefined;
  createdTo: Date | undefined;
  contentType: ContentType | undefined;
  /** Include quarantined and rejected entries (the trust filter leaves them out otherwise). */
  includeQuarantined: boolean;
  /** Only entries whose valid-time interval holds at this instant (valid_from ≤ t < valid_to, open ends unbounded). */
  validAt: Date | undefined;
  /** Search what the store held at this instant (transaction time): each entry as its version current then. */
  asOf: Date | undefined;
}

/** A search filter as a caller submits it (before validation). */
export interface SearchFilterInput {
  threadId: string;
  source: Source | undefined;
  tagsAny: readonly string[];
  tagsAll: readonly string[];
  metadata: readonly { key: string; operator: MetadataOperator; value: JsonValue | undefined }[];
  createdFrom: Date | undefined;
  createdTo: Date | undefined;
  contentType: string;
  includeQuarantined?: boolean | undefined;
  validAt?: Date | undefined;
  asOf?: Date | undefined;
}

/** Most elements an `in` / `not_in` list may hold. */
export const maxListValues = 100;

/** The filter that filters nothing. */
export const emptySearchFilter: SearchFilter = Object.freeze({
  threadId: undefined,
  source: undefined,
  tagsAny: [],
  tagsAll: [],
  metadata: [],
  createdFrom: undefined,
  createdTo: undefined,
  contentType: undefined,
  includeQuarantined: false,
  validAt: undefined,
  asOf: undefined,
}) as SearchFilter;

function hasNul(value: JsonValue): boolean {
  if (typeof value === "string") return value.includes("\u0000");
  if (Array.isArray(value)) return value.some(hasNul);
  if (value !== null && typeof value === "object") return Object.entries(value).some(([key, inner]) => key.includes("\u0000") || hasNul(inner));
  return false;
}

const isScalar = (value: JsonValue): boolean => value === null || typeof value !== "object";

/** Checks that `value` suits `operator`; INVALID_ARGUMENT naming `field` otherwise. */
function validateOperand(operator: MetadataOperator, value: JsonValue, field: string): JsonValue {
  switch (operator) {
    case "eq":
    case "ne":
      return value;
    case "gt":
    case "gte":
    case "lt":
    case "lte":
      if (typeof value !== "number" && typeof value !== "string") throw invalidArgument(`${field}.value must be a number or a string for ${operator}`);
      return value;
    case "in":
    case "not_in":
      if (!Array.isArray(value) || value.length === 0 || value.length > maxListValues) {
        throw invalidArgument(`${field}.value must be a list of 1 to ${maxListValues} values for ${operator}`);
      }
      return value;
    case "exists":
      if (typeof value !== "boolean") throw invalidArgument(`${field}.value must be true (the key is present) or false (absent) for exists`);
      return value;
    case "contains":
      if (!isScalar(value) || value === "") throw invalidArgument(`${field}.value must be a non-empty string, a number, a boolean or null for contains`);
      return value;
    case "starts_with":
      if (typeof value !== "string" || value === "") throw invalidArgument(`${field}.value must be a non-empty string for starts_with`);
      return value;
  }
}

function toContentType(value: string): ContentType | undefined {
  if (value === "") return undefined;
  if (value === "text" || value === "multimodal") return value;
  throw invalidArgument(`filter.content_type must be "text", "multimodal" or empty (got ${JSON.stringify(value.slice(0, 40))})`);
}

/**
 * Checks and normalises a search filter: tags are normalised as on write so
 * they match, each metadata condition's value must suit its operator (a
 * number or string for ordering, a list for `in`, a boolean for `exists`, …),
 * at most 20 conditions, and the time range must not be empty.
 */
export function validateSearchFilter(filter: SearchFilterInput | undefined): SearchFilter {
  if (filter === undefined) return emptySearchFilter;
  const threadId = filter.threadId === "" ? undefined : validateThreadId(filter.threadId, "filter.thread_id");
  const tagsAny = normaliseTags(filter.tagsAny, "filter.tags_any");
  const tagsAll = normaliseTags(filter.tagsAll, "filter.tags_all");
  if (filter.metadata.length > entryLimits.metadataConditions) {
    throw invalidArgument(`filter.metadata: at most ${entryLimits.metadataConditions} conditions (got ${filter.metadata.length})`);
  }
  const metadata = filter.metadata.map((condition, index): MetadataCondition => {
    const field = `filter.metadata[${index}]`;
    if (condition.key.length === 0 || condition.key.length > entryLimits.metadataKeyLength) {
      throw invalidArgument(`${field}.key must be 1 to ${entryLimits.metadataKeyLength} characters`);
    }
    if (condition.key.includes("\u0000")) throw invalidArgument(`${field}.key must not contain NUL characters`);
    if (condition.value === undefined) throw invalidArgument(`${field}.value is required`);
    checkMetadataShape(condition.value, `${field}.value`);
    if (hasNul(condition.value)) throw invalidArgument(`${field}.value must not contain NUL characters`);
    return { key: condition.key, operator: condition.operator, value: validateOperand(condition.operator, condition.value, field) };
  });
  for (const [name, date] of [
    ["created_from", filter.createdFrom],
    ["created_to", filter.createdTo],
    ["valid_at", filter.validAt],
    ["as_of", filter.asOf],
  ] as const) {
    if (date !== undefined && Number.isNaN(date.getTime())) throw invalidArgument(`filter.${name} is not a valid time`);
  }
  if (filter.createdFrom !== undefined && filter.createdTo !== undefined && filter.createdFrom >= filter.createdTo) {
    throw invalidArgument("filter.created_from must be before filter.created_to");
  }
  return {
    threadId,
    source: filter.source,
    tagsAny,
    tagsAll,
    metadata,
    createdFrom: filter.createdFrom,
    createdTo: filter.createdTo,
    contentType: toContentType(filter.contentType),
    includeQuarantined: filter.includeQuarantined ?? false,
    validAt: filter.validAt,
    asOf: filter.asOf,
  };
}
