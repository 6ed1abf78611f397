// The library's searches over hybrid search: deep_search (passages) and find_items (entries grouped by kind).
import { z } from "zod";
import { maxPassagesPerEntry } from "../search/entry-passages.js";
import { trustStates } from "../trust/trust-state.js";
import { queryInput, searchFilterFields } from "./search-filter-schemas.js";

/** Limits of deep_search and find_items. */
/** Limits of deep_search and find_items; maxEntries × maxPassagesPerEntry stays within one passages call (maxPassagesPerSearch). */
export const librarySearchLimits = Object.freeze({
  defaultPassages: 10,
  maxPassages: 50,
  defaultEntries: 10,
  maxEntries: 40,
  defaultPassagesPerEntry: 3,
  defaultItems: 20,
  maxItems: 50,
  snippetChars: 300,
});

const noAsOf = (value: { as_of?: string | undefined }) => value.as_of === undefined;

export const deepSearchInput = z
  .object({
    query: queryInput.describe(
      "What you are looking for: matched by words and by meaning, then read passage by passage.",
    ),
    limit: z
      .number()
      .int()
      .min(1)
      .max(librarySearchLimits.maxPassages)
      .optional()
      .describe(`Passages to return (default ${librarySearchLimits.defaultPassages}).`),
    entries: z
      .number()
      .int()
      .min(1)
      .max(librarySearchLimits.maxEntries)
      .optional()
      .describe(
        `How many of hybrid search's best entries the passages are drawn from (default ${librarySearchLimits.defaultEntries}).`,
      ),
    passages_per_entry: z
      .number()
      .int()
      .min(1)
      .max(maxPassagesPerEntry)
      .optional()
      .describe(
        `Passages read from each of those entries at most (default ${librarySearchLimits.defaultPassagesPerEntry}).`,
      ),
    ...searchFilterFields,
  })
  .strict()
  .refine(noAsOf, "deep_search is not available with as_of: passages are cut from the current text");

/** What a passage or a catalogue row names of its entry; `id` and `trust_state` beside the text let the rendering fence it. */
export const entryNaming = {
  id: z.string(),
  thread_id: z.string(),
  kind: z.string(),
  title: z.string().nullable(),
  trust_state: z.enum(trustStates),
};

export const deepSearchOutput = z.object({
  results: z.array(
    z.object({
      ...entryNaming,
      node_id: z
        .string()
        .describe('The outline section the passage starts in (navigate_context); "" before the first heading.'),
      start: z.number().describe("First character of the passage (read_context_range start)."),
      end: z.number().describe("Character after the passage (read_context_range end)."),
      text: z.string(),
      score: z
        .number()
        .describe(
          "What passages are ranked by: the reranker's score of the passage blended with its entry's hybrid score, as hybrid blends them.",
        ),
      passage_score: z
        .number()
        .nullable()
        .describe("The reranker's score of the passage alone; null if it could not score."),
      entry_rank: z.number().describe("The entry's rank in the hybrid search the passages come from."),
    }),
  ),
  count: z.number(),
  entries_read: z.number().describe("Entries whose passages were read."),
  warnings: z.array(z.string()),
});

export const findItemsInput = z
  .object({
    query: queryInput.describe(
      "What you are looking for, across every kind of entry (notes, documents, prompts, plans…).",
    ),
    limit: z
      .number()
      .int()
      .min(1)
      .max(librarySearchLimits.maxItems)
      .optional()
      .describe(`Entries to find in all, before grouping (default ${librarySearchLimits.defaultItems}).`),
    ...searchFilterFields,
  })
  .strict()
  .refine(noAsOf, "find_items is not available with as_of: use hybrid_search_context with as_of");

export const findItemsOutput = z.object({
  groups: z.array(
    z.object({
      kind: z.string(),
      count: z.number(),
      results: z.array(
        z.object({
          ...entryNaming,
          rank: z.number().describe("The entry's rank across every kind."),
          score: z.number(),
          snippet: z.string().describe("The part of the entry that best matches the query."),
          snippet_start: z.number(),
          snippet_end: z.number(),
          node_id: z.string().describe('The outline section the snippet starts in; "" before the first heading.'),
          updated_at: z.string().nullable(),
        }),
      ),
    }),
  ),
  count: z.number().describe("Entries found, in every group."),
  warnings: z.array(z.string()),
});
