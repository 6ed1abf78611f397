/** Input and output of `reason`: a question answered from the library, every statement cited. */
import { z } from "zod";
import { answerLimits } from "@context-hub/common";
import { entryNaming } from "./library-search-schemas.js";
import { searchFilterFields } from "./search-filter-schemas.js";

/** How much evidence `reason` reads: entries from hybrid search, and passages of each. */
export const reasonLimits = Object.freeze({
  defaultEntries: 5,
  maxEntries: 10,
  defaultPassagesPerEntry: 2,
  maxPassagesPerEntry: 4,
  maxGaps: 5,
  gapChars: 300,
});

export const reasonInput = z
  .object({
    question: z
      .string()
      .trim()
      .min(1, "question must not be empty")
      .max(answerLimits.questionChars)
      .describe("The question to answer from what the library holds."),
    entries: z
      .number()
      .int()
      .min(1)
      .max(reasonLimits.maxEntries)
      .optional()
      .describe(
        `How many of hybrid search's best entries the evidence comes from (default ${reasonLimits.defaultEntries}).`,
      ),
    passages_per_entry: z
      .number()
      .int()
      .min(1)
      .max(reasonLimits.maxPassagesPerEntry)
      .optional()
      .describe(
        `Passages of evidence read from each entry at most (default ${reasonLimits.defaultPassagesPerEntry}); at most ${answerLimits.passages} in all.`,
      ),
    max_statements: z
      .number()
      .int()
      .min(1)
      .max(answerLimits.maxStatements)
      .optional()
      .describe(`The most statements the answer holds (default ${answerLimits.defaultStatements}).`),
    ...searchFilterFields,
  })
  .strict()
  .refine((value) => value.as_of === undefined, "reason is not available with as_of: the evidence is the current text");

/** The answer is its statements in order, each citing numbered citations; a reader joins them as "statement [1][2]". */
export const reasonOutput = z.object({
  statements: z.array(
    z.object({
      ...entryNaming,
      text: z.string().describe("The statement: a sentence of the evidence, or a model's words resting on it."),
      citations: z.array(z.number()).describe("Numbers of the citations it rests on (citations[].number)."),
    }),
  ),
  citations: z.array(
    z.object({
      ...entryNaming,
      number: z.number(),
      node_id: z
        .string()
        .describe('The outline section the passage starts in (navigate_context); "" before the first heading.'),
      start: z.number().describe("First character of the cited passage in the entry (read_context_range start)."),
      end: z.number().describe("Character after the cited passage."),
      text: z.string().describe("The quoted words, as the entry holds them."),
      quote_start: z.number().describe("First character of the quote in the entry."),
      quote_end: z.number().describe("Character after the quote."),
    }),
  ),
  gaps: z
    .array(z.string())
    .describe(
      `Parts of the question the evidence does not cover, in the provider's words (at most ${reasonLimits.maxGaps}, each cut to ${reasonLimits.gapChars} characters).`,
    ),
  dropped: z
    .array(
      z.object({
        statement: z.number().describe("1-based position of the statement among those the provider gave."),
        passage: z
          .number()
          .nullable()
          .describe("The passage the dropped citation named; null when the whole statement is dropped."),
        reason: z.string(),
      }),
    )
    .describe(
      "Citations (and statements left without one) that did not hold against the evidence, with why; their words are not repeated.",
    ),
  evidence_passages: z.number().describe("Passages of evidence the answer was given."),
  entries_read: z.number(),
  provider: z.object({
    name: z.string(),
    model: z.string(),
    synthesised: z
      .boolean()
      .describe("True when a language model wrote the statements; false for the extractive answer."),
  }),
  warnings: z.array(z.string()),
});
