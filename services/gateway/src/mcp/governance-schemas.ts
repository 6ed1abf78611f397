// The inputs of the tools that govern entries rather than write them: sharing, history and restore, review, the audit log.
import { z } from "zod";
import {
  collectionIdSchema,
  entryIdSchema,
  idempotencyKeySchema,
  isoDate,
  limits,
  noNul,
  threadIdSchema,
} from "./input-schemas.js";

const granteeName = z.string().min(1).max(256).refine(noNul, "names must not contain NUL characters");

const sharingFields = {
  context_ids: z
    .array(entryIdSchema)
    .min(1, "give at least one id")
    .max(limits.batchItems, `at most ${limits.batchItems} ids per call`)
    .optional()
    .describe("Your entries to share."),
  thread_id: threadIdSchema
    .optional()
    .describe("Share all your entries in this thread, including ones you store there later."),
  collection_id: collectionIdSchema
    .optional()
    .describe(
      "Share your collection for reading: its members that are your entries, including ones you add later (others' entries in it stay as their owners shared them).",
    ),
  subjects: z
    .array(granteeName)
    .max(50, "at most 50 subjects")
    .optional()
    .describe("Subject ids of people or agents in your organisation."),
  groups: z.array(granteeName).max(50, "at most 50 groups").optional().describe("Group names in your organisation."),
  idempotency_key: idempotencyKeySchema.optional(),
};

const oneTarget = (value: { context_ids?: unknown; thread_id?: unknown; collection_id?: unknown }) =>
  [value.context_ids, value.thread_id, value.collection_id].filter((target) => target !== undefined).length === 1;

export const shareContextInput = z
  .object({
    ...sharingFields,
    permission: z
      .enum(["read", "write"])
      .describe(
        "'read' lets them see the entries; 'write' also lets them change and delete them (not on a collection, which is shared for reading only).",
      ),
  })
  .strict()
  .refine(oneTarget, "give one of context_ids, thread_id or collection_id")
  .refine(
    (value) => (value.subjects?.length ?? 0) + (value.groups?.length ?? 0) > 0,
    "name at least one subject or group to share with",
  );

export const unshareContextInput = z
  .object({
    ...sharingFields,
    permission: z.enum(["read", "write"]).optional().describe("Revoke only this permission; both when omitted."),
  })
  .strict()
  .refine(oneTarget, "give one of context_ids, thread_id or collection_id");

const versionSchema = z.number().int().min(1, "versions start at 1");

export const listGrantsInput = z
  .object({
    context_id: z
      .string()
      .length(36, "context_id must be a full entry id (36 characters)")
      .optional()
      .describe("Only grants that reach this entry: those on it, and its owner's on its thread."),
    thread_id: threadIdSchema.optional().describe("Only grants on this thread."),
    collection_id: collectionIdSchema.optional().describe("Only grants on this collection."),
    grantor: z
      .string()
      .min(1)
      .max(256)
      .optional()
      .describe("Administrators: only this person's grants (by default every grantor in your organisation)."),
    limit: z.number().int().min(1).max(100, "limit must be at most 100").optional().describe("Page size, default 50."),
    offset: z.number().int().min(0).max(10_000, "offset must be at most 10000").optional(),
  })
  .strict()
  .refine(
    (args) => [args.context_id, args.thread_id, args.collection_id].filter((value) => value !== undefined).length <= 1,
    { message: "give at most one of context_id, thread_id and collection_id" },
  );

export const getContextHistoryInput = z
  .object({
    context_id: entryIdSchema,
    version: versionSchema.optional().describe("Only this version (default: all, newest first)."),
    limit: z
      .number()
      .int()
      .min(1)
      .max(limits.pageSize, `limit must be at most ${limits.pageSize}`)
      .optional()
      .describe("Page size, default 20."),
    offset: z.number().int().min(0).max(limits.maxOffset, `offset must be at most ${limits.maxOffset}`).optional(),
  })
  .strict();

export const restoreContextVersionInput = z
  .object({
    context_id: entryIdSchema,
    version: versionSchema.describe(
      "The version to restore; it becomes a new version, and the current one stays in the history.",
    ),
    expected_version: versionSchema
      .optional()
      .describe("Restore only if the entry is still at this version (compare-and-set)."),
    idempotency_key: idempotencyKeySchema.optional(),
  })
  .strict();

export const listReviewQueueInput = z
  .object({
    states: z
      .array(z.enum(["quarantined", "unverified", "rejected"]))
      .min(1)
      .max(3)
      .optional()
      .describe("Trust states to list (default quarantined and unverified; rejected to reconsider a rejection)."),
    thread_id: threadIdSchema.optional(),
    limit: z.number().int().min(1).max(50, "limit must be at most 50").optional().describe("Page size, default 20."),
    offset: z.number().int().min(0).max(limits.maxOffset, `offset must be at most ${limits.maxOffset}`).optional(),
  })
  .strict();

export const reviewContextInput = z
  .object({
    context_id: entryIdSchema
      .optional()
      .describe("The entry to review (give exactly one of context_id, handoff_id, session_id)."),
    handoff_id: z.string().min(1).max(64).optional().describe("A handoff to review (kind handoff in the queue)."),
    session_id: z
      .string()
      .min(1)
      .max(64)
      .optional()
      .describe("A session event to review (kind session_event in the queue): its session, with sequence."),
    sequence: z.number().int().min(1).max(2_147_483_647).optional().describe("The session event's sequence."),
    decision: z
      .enum(["approve", "reject"])
      .describe("approve: it becomes verified. reject: it becomes rejected (left out of searches and start_here)."),
    expected_version: versionSchema.describe(
      "The version you reviewed (a session event is at 1); if it changed since, the review is refused.",
    ),
    note: z
      .string()
      .max(2000, "note must be at most 2000 characters")
      .refine(noNul, "note must not contain NUL characters")
      .optional()
      .describe("Why, for the audit log and the entry."),
  })
  .strict();

export const getAuditLogInput = z
  .object({
    action: z
      .string()
      .min(1)
      .max(256)
      .optional()
      .describe("Only this action, e.g. entry.delete, entry.update, entry.review."),
    actor: z.string().min(1).max(256).optional().describe("Only records of this subject."),
    target_id: z
      .string()
      .min(1)
      .max(256)
      .optional()
      .describe("Only records naming this entry id (or thread id, for thread grants)."),
    outcome: z.enum(["ok", "denied"]).optional(),
    start_date: isoDate("start_date").optional(),
    end_date: isoDate("end_date").optional(),
    limit: z.number().int().min(1).max(500, "limit must be at most 500").optional().describe("Page size, default 50."),
    before_seq: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe("Records older than this sequence number: pass next_before_seq of the previous page."),
    verify: z
      .boolean()
      .optional()
      .describe("Also recompute the whole hash chain of your organisation's log and report it in chain."),
  })
  .strict();
