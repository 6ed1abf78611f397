// The inputs of the read tools: get_context_by_ids, list_threads and get_statistics.
import { z } from "zod";
import { entryLimits } from "@context-hub/common";
import { limits, threadIdSchema } from "./input-schemas.js";

export const getContextByIdsInput = z
  .object({
    context_ids: z
      .array(
        z.string().min(8, "an id or prefix needs at least 8 hex characters").max(36, "an id is at most 36 characters"),
      )
      .min(1, "give at least one id")
      .max(limits.idsPerFetch, `at most ${limits.idsPerFetch} ids per call`)
      .describe("Full entry ids, or unique prefixes of 8 to 31 hex characters."),
    include_images: z.boolean().optional().describe("Return image data as base64 (default false: sizes only)."),
    include_quarantined: z
      .boolean()
      .optional()
      .describe("Also return quarantined and rejected entries (default false: they are listed under withheld)."),
  })
  .strict();

export const listThreadsInput = z
  .object({
    limit: z
      .number()
      .int()
      .min(1)
      .max(limits.pageSize, `limit must be at most ${limits.pageSize}`)
      .optional()
      .describe("Page size, default 50."),
    offset: z.number().int().min(0).max(limits.maxOffset, `offset must be at most ${limits.maxOffset}`).optional(),
  })
  .strict();

export const getStatisticsInput = z
  .object({
    thread_id: threadIdSchema.optional(),
    days: z
      .number()
      .int()
      .min(0)
      .max(entryLimits.statisticsDays, `days must be at most ${entryLimits.statisticsDays}`)
      .optional()
      .describe(
        "Also answer this many UTC days of daily activity (entries created, by source and trust state; writes), ending today.",
      ),
  })
  .strict();
