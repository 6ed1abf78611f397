/**
 * The operators a metadata filter condition may name, as tools and the store
 * both spell them: the gateway's schemas offer these and the store checks and
 * compiles these, so the two cannot drift apart.
 */
export const metadataOperators = [
  "eq",
  "ne",
  "gt",
  "gte",
  "lt",
  "lte",
  "in",
  "not_in",
  "exists",
  "not_exists",
  "contains",
  "starts_with",
  "ends_with",
  "is_null",
  "is_not_null",
  "array_contains",
] as const;

/** How a metadata condition compares an entry's value at a key (or dotted path) with the given one. */
export type MetadataOperator = (typeof metadataOperators)[number];
