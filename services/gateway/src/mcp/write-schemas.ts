// The inputs of the write tools: store_context and its batch, update_context and its batch, delete_context and its batch.
import { z } from "zod";
import { promptNameChangeSchema } from "./prompt-argument-schemas.js";
import {
  backwardValidity,
  boundedJson,
  entryIdSchema,
  idempotencyKeySchema,
  imagesSchema,
  isForwardValidity,
  kindFields,
  limits,
  metadataSchema,
  metadataSizeProblem,
  metadataValue,
  noNul,
  sourceSchema,
  tagsSchema,
  textSchema,
  threadIdSchema,
  validityFields,
  visibilitySchema,
} from "./input-schemas.js";

export const storeContextInput = z
  .object({
    thread_id: threadIdSchema,
    source: sourceSchema,
    text: textSchema,
    images: imagesSchema.optional().describe("Base64 images to keep with the entry."),
    metadata: metadataSchema.optional(),
    tags: tagsSchema.optional(),
    visibility: visibilitySchema.optional(),
    ...validityFields,
    ...kindFields,
    idempotency_key: idempotencyKeySchema.optional(),
  })
  .strict()
  .refine(isForwardValidity, backwardValidity);

const newEntrySchema = z
  .object({
    thread_id: threadIdSchema,
    source: sourceSchema,
    text: textSchema,
    images: imagesSchema.optional(),
    metadata: metadataSchema.optional(),
    tags: tagsSchema.optional(),
    visibility: visibilitySchema.optional(),
    ...validityFields,
    ...kindFields,
  })
  .strict()
  .refine(isForwardValidity, backwardValidity);

export const storeContextBatchInput = z
  .object({
    entries: z
      .array(newEntrySchema)
      .min(1, "give at least one entry")
      .max(limits.batchItems, `at most ${limits.batchItems} entries per batch`),
    atomic: z
      .boolean()
      .optional()
      .describe("true (default): all entries are stored or none. false: each entry succeeds or fails on its own."),
    idempotency_key: idempotencyKeySchema.optional(),
  })
  .strict();

const changeFields = {
  text: textSchema
    .optional()
    .describe("New text; vectors and summaries are regenerated before the change is committed."),
  metadata: metadataSchema.optional().describe("Replaces the metadata."),
  tags: tagsSchema.optional().describe("Replaces the tags."),
  images: imagesSchema.optional().describe("Replaces the images."),
  visibility: visibilitySchema.optional().describe("Only the owner may change visibility."),
  valid_from: validityFields.valid_from.describe(
    "Giving valid_from or valid_to replaces the whole valid-time interval: an end left out (or null) becomes open.",
  ),
  valid_to: validityFields.valid_to.describe("When the fact stops holding (exclusive); see valid_from."),
  kind: kindFields.kind.describe('Replaces the kind (one the store accepts; not "memory").'),
  title: kindFields.title.describe("Replaces the title; an empty string removes it."),
  prompt_arguments: kindFields.prompt_arguments.describe(
    "Replaces a prompt's declared arguments; [] removes them. Every {{name}} in the text must stay declared.",
  ),
  artifacts: kindFields.artifacts.describe("Replaces the linked artifacts; [] removes them."),
  prompt_name: promptNameChangeSchema
    .optional()
    .describe("Replaces a prompt's name; an empty string removes it. Only the owner may change it."),
  expected_version: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe("Apply only if the entry is still at this version (compare-and-set)."),
};

const hasChange = (change: Record<string, unknown>) =>
  [
    "text",
    "metadata",
    "tags",
    "images",
    "visibility",
    "valid_from",
    "valid_to",
    "kind",
    "title",
    "prompt_arguments",
    "artifacts",
    "prompt_name",
  ].some((field) => change[field] !== undefined);
const changeRequired =
  "give at least one of text, metadata, tags, images, visibility, valid_from, valid_to, kind, title, prompt_arguments, artifacts or prompt_name to change";

export const updateContextInput = z
  .object({
    context_id: entryIdSchema,
    ...changeFields,
    metadata_patch: boundedJson(
      "metadata_patch",
      z
        .object({})
        .catchall(metadataValue)
        .superRefine((patch, context) => {
          const problem = metadataSizeProblem(patch);
          if (problem !== undefined)
            context.addIssue({ code: "custom", message: problem.replace(/^metadata/, "metadata_patch") });
        }),
    )
      .optional()
      .describe(
        "Change some metadata keys and keep the rest (RFC 7396 merge patch): a key with a value sets it (objects merge key by key, arrays are replaced), a key with null removes it. Merged onto the current metadata under compare-and-set; not with metadata.",
      ),
    idempotency_key: idempotencyKeySchema.optional(),
  })
  .strict()
  .refine((value) => hasChange(value) || value.metadata_patch !== undefined, `${changeRequired} (or metadata_patch)`)
  .refine(
    (value) => value.metadata === undefined || value.metadata_patch === undefined,
    "give metadata (replaces it all) or metadata_patch (changes some keys), not both",
  )
  .refine(isForwardValidity, backwardValidity);

export const updateContextBatchInput = z
  .object({
    updates: z
      .array(
        z
          .object({ context_id: entryIdSchema, ...changeFields })
          .strict()
          .refine(hasChange, changeRequired)
          .refine(isForwardValidity, backwardValidity),
      )
      .min(1, "give at least one update")
      .max(limits.batchItems, `at most ${limits.batchItems} updates per batch`),
    atomic: z
      .boolean()
      .optional()
      .describe("true (default): all updates apply or none. false: each update succeeds or fails on its own."),
    idempotency_key: idempotencyKeySchema.optional(),
  })
  .strict();

const deleteReasonSchema = z
  .string()
  .max(1000, "reason must be at most 1000 characters")
  .refine(noNul, "reason must not contain NUL characters")
  .describe("Why the entries are deleted; kept on their tombstones and in the audit log.");

export const deleteContextInput = z
  .object({
    context_ids: z
      .array(entryIdSchema)
      .min(1, "give at least one id")
      .max(limits.batchItems, `at most ${limits.batchItems} ids per call`)
      .optional(),
    thread_id: threadIdSchema.optional().describe("Delete every entry of this thread that you may change."),
    reason: deleteReasonSchema.optional(),
    idempotency_key: idempotencyKeySchema.optional(),
  })
  .strict()
  .refine(
    (value) => (value.context_ids === undefined) !== (value.thread_id === undefined),
    "give either context_ids or thread_id, not both",
  );

const hasCriteria = (value: { thread_ids?: unknown; source?: unknown; older_than_days?: unknown }) =>
  value.thread_ids !== undefined || value.source !== undefined || value.older_than_days !== undefined;

export const deleteContextBatchInput = z
  .object({
    context_ids: z
      .array(entryIdSchema)
      .min(1, "give at least one id")
      .max(limits.batchItems, `at most ${limits.batchItems} ids per call`)
      .optional(),
    thread_ids: z
      .array(threadIdSchema)
      .min(1, "give at least one thread id")
      .max(limits.batchItems, `at most ${limits.batchItems} thread ids per call`)
      .optional()
      .describe(
        "Instead of context_ids: entries of any of these threads (with source and older_than_days, all must hold).",
      ),
    source: z.enum(["user", "agent"]).optional().describe("Instead of context_ids: entries from this source."),
    older_than_days: z
      .number()
      .int()
      .min(1)
      .max(36_500)
      .optional()
      .describe("Instead of context_ids: entries created more than this many days ago."),
    dry_run: z
      .boolean()
      .optional()
      .describe("With thread_ids, source or older_than_days: only count what would be deleted (default false)."),
    atomic: z
      .boolean()
      .optional()
      .describe(
        "false (default): each entry is deleted or reported on its own. true: all of this call's are deleted or none.",
      ),
    reason: deleteReasonSchema.optional(),
    idempotency_key: idempotencyKeySchema.optional(),
  })
  .strict()
  .refine(
    (value) => (value.context_ids === undefined) !== !hasCriteria(value),
    "give either context_ids or criteria (thread_ids, source, older_than_days), not both",
  )
  .refine(
    (value) => value.dry_run === undefined || hasCriteria(value),
    "dry_run applies to criteria (thread_ids, source, older_than_days), not to context_ids",
  );
