/** Input and output schemas of start_here: one call that gathers what an agent needs to begin work in a namespace. */
import { z } from "zod";
import { handoffOutput } from "./handoff-schemas.js";
import { limits as inputLimits } from "./input-schemas.js";
import { memoryOutput } from "./memory-schemas.js";
import { entryListingOutput } from "./output-schemas.js";
import { sessionEventOutput, sessionOutput } from "./session-schemas.js";

export const startToolLimits = {
  defaultMaxTokens: 4_000,
  minMaxTokens: 1_000,
  maxMaxTokens: 32_000,
  defaultEvents: 20,
  maxEvents: 100,
  defaultEntries: 10,
  maxEntries: 50,
  queryChars: 2_000,
} as const;

const noNul = (value: string) => !value.includes("\u0000");

const name = (field: string) =>
  z
    .string()
    .min(1, `${field} must not be empty`)
    .max(inputLimits.threadIdChars, `${field} must be at most ${inputLimits.threadIdChars} characters`)
    .refine(noNul, `${field} must not contain NUL characters`);

const count = (field: string, max: number) =>
  z
    .number()
    .int(`${field} must be a whole number`)
    .min(0, `${field} must be 0 to ${max}`)
    .max(max, `${field} must be 0 to ${max}`);

export const startHereInput = z
  .object({
    namespace: name("namespace")
      .optional()
      .describe("The project you work in (default: your own namespace, your subject)."),
    thread: name("thread")
      .optional()
      .describe(
        "The thread you work in: its entries are shown, and only sessions in it count as the last session (default: the namespace's own thread for entries, any thread of the namespace for sessions).",
      ),
    query: z
      .string()
      .max(startToolLimits.queryChars, `query must be at most ${startToolLimits.queryChars} characters`)
      .refine(noNul, "query must not contain NUL characters")
      .refine((value) => value.trim() !== "", "query must not be empty; leave it out for the newest entries")
      .optional()
      .describe(
        "What you are about to do. With it, the entries shown are the thread's best hybrid-search hits for it; without it, the thread's newest entries.",
      ),
    max_tokens: z
      .number()
      .int("max_tokens must be a whole number")
      .min(
        startToolLimits.minMaxTokens,
        `max_tokens must be ${startToolLimits.minMaxTokens} to ${startToolLimits.maxMaxTokens}`,
      )
      .max(
        startToolLimits.maxMaxTokens,
        `max_tokens must be ${startToolLimits.minMaxTokens} to ${startToolLimits.maxMaxTokens}`,
      )
      .optional()
      .describe(
        `The most the answer's text may take of your context, in tokens as a GPT-style tokenizer counts them, estimated (default ${startToolLimits.defaultMaxTokens}). Parts are cut in the order budget.cut_order names.`,
      ),
    last_events: count("last_events", startToolLimits.maxEvents)
      .optional()
      .describe(`How many of the last session's final events to read (default ${startToolLimits.defaultEvents}).`),
    entries: count("entries", startToolLimits.maxEntries)
      .optional()
      .describe(`How many of the thread's entries to read (default ${startToolLimits.defaultEntries}).`),
  })
  .strict();

const leftOut = z.number().describe("Items read but left out to keep within max_tokens.");
const hasMore = z.boolean().describe("More exist than were read; the part's own tool lists them.");

export const startHereOutput = z.object({
  you: z.object({
    tenant: z.string(),
    subject: z.string(),
    groups: z.array(z.string()),
    scopes: z.array(z.string()),
  }),
  namespace: z.string(),
  thread: z.string().nullable().describe("The thread asked for; null: none was."),
  handoffs: z
    .object({
      items: z.array(handoffOutput),
      count: z.number(),
      left_out: leftOut,
      has_more: hasMore,
      quarantined: z
        .number()
        .describe(
          "Open handoffs to you left out because the write-time screen found instruction-shaped content in them and no reviewer approved them, or a reviewer rejected them (list_handoffs shows them).",
        ),
    })
    .describe("Open handoffs addressed to you, oldest first: accept one with accept_handoff."),
  pinned_memories: z
    .object({ items: z.array(memoryOutput), count: z.number(), left_out: leftOut, has_more: hasMore })
    .describe("The namespace's memories tagged 'pinned' that you can see, by key; values cut at 1,000 characters."),
  last_session: z
    .object({
      session: sessionOutput
        .nullable()
        .describe("The newest session in the namespace (or thread) you can see that logged anything; null: none."),
      summary_left_out: z
        .boolean()
        .describe("Its summary was left out to keep within max_tokens (get_session reads it)."),
      events: z.array(sessionEventOutput).describe("Its final events, oldest first."),
      count: z.number(),
      left_out: leftOut,
      earlier_events: z.number().describe("Events before the first one shown (read_session_events reads them)."),
    })
    .describe("Where the last agent left off."),
  entries: z
    .object({
      mode: z.enum(["newest", "search"]),
      thread_id: z.string(),
      items: z.array(entryListingOutput.extend({ score: z.number().nullable() })),
      count: z.number(),
      left_out: leftOut,
      has_more: hasMore,
      warnings: z.array(z.string()),
    })
    .describe("The thread's newest entries, or its best hits for query; full text with get_context_by_ids."),
  budget: z.object({
    max_tokens: z.number(),
    used_tokens: z.number().describe("This answer's text, in estimated tokens."),
    cut_order: z.array(z.string()).describe("The order parts are cut in when the answer would exceed max_tokens."),
  }),
  message: z.string(),
});

export type StartHereOutput = z.infer<typeof startHereOutput>;
