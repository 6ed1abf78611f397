// The search tools' limits, their query and the filters every search, grep and search_context share.
import { z } from "zod";
import { metadataOperators } from "@context-hub/common";
import { maxJsonDepth } from "./json-shape.js";
import {
  boundedJson,
  collectionIdSchema,
  isoInstant,
  kindSchema,
  limits as inputLimits,
  noNul,
  sourceSchema,
  tagsSchema,
  threadIdSchema,
} from "./input-schemas.js";
import { peerListingFields } from "./peer-arguments.js";

/** Limits of the search and navigation tools; the store enforces the same (docs/retrieval.md). */
export const searchToolLimits = {
  queryChars: 1_000,
  /** The deepest a ranking goes: offset + limit may not exceed it. */
  maxRankingDepth: 500,
  pageSize: 100,
  defaultPageSize: 10,
  metadataConditions: 20,
  /** Candidates each hybrid leg contributes by default, and at most. */
  defaultCandidates: 50,
  maxCandidates: 500,
  /** Results of a hybrid search the reranker reorders by default, and at most. */
  defaultRerankDepth: 50,
  maxRerankDepth: 200,
  maxRangeChars: 100_000,
  patternChars: 1_000,
} as const;

export const queryInput = z
  .string()
  .max(searchToolLimits.queryChars, `query must be at most ${searchToolLimits.queryChars} characters`)
  .refine((value) => value.trim().length > 0, "query must not be empty")
  .refine(noNul, "query must not contain NUL characters");

const isoDate = (name: string) =>
  z
    .string()
    .max(40, `${name} must be at most 40 characters`)
    .refine((value) => !Number.isNaN(Date.parse(value)), `${name} must be an ISO 8601 date or date-time`)
    .describe(`${name} as ISO 8601, e.g. 2026-01-31 or 2026-01-31T12:00:00Z.`);

type MetadataOperatorName = (typeof metadataOperators)[number];

/** The operators that compare strings, and so take case_sensitive (the store checks the same). */
const caseOperators: readonly MetadataOperatorName[] = [
  "eq",
  "ne",
  "in",
  "not_in",
  "contains",
  "starts_with",
  "ends_with",
  "array_contains",
];
/** The operators that take no value; exists takes one optionally. */
const valuelessOperators: readonly MetadataOperatorName[] = ["not_exists", "is_null", "is_not_null"];

const metadataFilter = z
  .object({
    key: z
      .string()
      .min(1)
      .max(256)
      .refine(noNul, "key must not contain NUL characters")
      .describe(
        "A top-level metadata key, or a dotted path into nested objects (user.prefs.theme); a top-level key spelled with the dots wins over the path.",
      ),
    operator: z
      .enum(metadataOperators)
      .optional()
      .describe(
        "Default eq. eq/ne: equal or not (ne also matches entries without the key); gt/gte/lt/lte: numbers with numbers, strings with strings (ISO dates compare by time); in/not_in: one of a list (not_in also matches entries without the key); exists: without a value, present and not null; with true/false, present or absent; not_exists: absent or null; is_null/is_not_null: present and null / not null; contains: a string value contains the text (case-insensitive by default), or a list value holds the element; starts_with/ends_with: a string value starts/ends with the text; array_contains: a list value holds the element.",
      ),
    value: boundedJson("value", z.unknown())
      .optional()
      .describe(
        `The value to compare with: a list for in/not_in; none for exists, not_exists, is_null, is_not_null. At most ${maxJsonDepth} levels deep.`,
      ),
    case_sensitive: z
      .boolean()
      .optional()
      .describe(
        "For eq, ne, in, not_in, contains, starts_with, ends_with and array_contains: false compares strings ignoring case, true exactly. Default: contains ignores case, the others are exact.",
      ),
  })
  .strict()
  .superRefine((condition, context) => {
    const operator = condition.operator ?? "eq";
    if (valuelessOperators.includes(operator) && condition.value !== undefined && condition.value !== null) {
      context.addIssue({
        code: "custom",
        path: ["value"],
        message: `leave value out for ${operator}, which takes none`,
      });
    }
    if (!valuelessOperators.includes(operator) && operator !== "exists" && condition.value === undefined) {
      context.addIssue({ code: "custom", path: ["value"], message: `${operator} needs a value` });
    }
    if (condition.case_sensitive !== undefined && !caseOperators.includes(operator)) {
      context.addIssue({
        code: "custom",
        path: ["case_sensitive"],
        message: `case_sensitive applies only to ${caseOperators.join(", ")}, not to ${operator}`,
      });
    }
  });

/**
 * The filters every search, grep and search_context share (one definition,
 * one conversion in clients/search-filter.ts): thread, source, tags,
 * metadata with operators, dates, content type, kind and title prefix, collection, trust
 * and both timelines.
 */
export const searchFilterFields = {
  thread_id: threadIdSchema.optional(),
  source: sourceSchema.optional(),
  tags: tagsSchema.optional().describe("Entries carrying at least one of these tags."),
  tags_all: tagsSchema.optional().describe("Entries carrying every one of these tags."),
  metadata: boundedJson(
    "metadata",
    z
      .object({})
      .catchall(z.union([z.string(), z.number(), z.boolean(), z.null()]))
      .refine(
        (metadata) =>
          Object.keys(metadata).every((key) => key.length >= 1 && key.length <= inputLimits.metadataKeyChars),
        `metadata keys must be 1 to ${inputLimits.metadataKeyChars} characters`,
      ),
  )
    .optional()
    .describe("Top-level metadata keys that must equal these values."),
  metadata_filters: z
    .array(metadataFilter)
    .max(searchToolLimits.metadataConditions, `at most ${searchToolLimits.metadataConditions} metadata conditions`)
    .optional()
    .describe("Metadata conditions with operators, all of which must hold."),
  start_date: isoDate("start_date").optional(),
  end_date: isoDate("end_date").optional(),
  content_type: z.enum(["text", "multimodal"]).optional(),
  kind: z
    .union([
      kindSchema,
      z
        .array(kindSchema)
        .min(1, "give at least one kind")
        .max(inputLimits.filterKinds, `at most ${inputLimits.filterKinds} kinds`),
    ])
    .optional()
    .describe('Only entries of this kind, or of any of these kinds (e.g. "document" or ["prompt", "plan"]).'),
  title_prefix: z
    .string()
    .max(inputLimits.titleChars, `title_prefix must be at most ${inputLimits.titleChars} characters`)
    .refine(noNul, "title_prefix must not contain NUL characters")
    .optional()
    .describe("Only entries whose title starts with this, ignoring case (entries without a title never match)."),
  collection_id: collectionIdSchema
    .optional()
    .describe(
      "Only members of this collection (list_collections shows yours and those shared with you); a collection you cannot see matches nothing.",
    ),
  include_quarantined: z
    .boolean()
    .optional()
    .describe(
      "Also find quarantined and rejected entries (default false: they are left out). Every result carries its trust_state; treat such entries with suspicion.",
    ),
  valid_at: isoInstant("valid_at")
    .optional()
    .describe(
      "Only entries whose stated validity (valid_from <= t < valid_to; an unset end is open) holds at this instant, ISO 8601.",
    ),
  as_of: isoInstant("as_of")
    .optional()
    .describe(
      "Search what the store held at this instant (ISO 8601): each entry as its version current then, entries deleted since included while their history is kept (yours only), entries created later left out. Access is as of now. Semantic search answers as_of from full text (old vectors are not kept).",
    ),
};

/** search_context: the shared filters, newest first, paged. */
export const searchContextInput = z
  .object({
    ...searchFilterFields,
    limit: z
      .number()
      .int()
      .min(1)
      .max(inputLimits.pageSize, `limit must be at most ${inputLimits.pageSize}`)
      .optional()
      .describe("Page size, default 30."),
    offset: z
      .number()
      .int()
      .min(0)
      .max(inputLimits.maxOffset, `offset must be at most ${inputLimits.maxOffset}`)
      .optional(),
    ...peerListingFields,
  })
  .strict();
