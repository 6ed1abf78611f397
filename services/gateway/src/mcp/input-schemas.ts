import { z } from "zod";
import { describeImageBytes, detectImageType, entryLimits, imageMimeTypes } from "@context-hub/common";
import { jsonShapeProblem, maxJsonDepth } from "./json-shape.js";
import { promptArgumentsSchema } from "./prompt-argument-schemas.js";

/** Limits every tool enforces before anything reaches a worker or the store: the store's own, from @context-hub/common. */
export const limits = {
  threadIdChars: entryLimits.threadIdChars,
  textChars: entryLimits.textChars,
  images: entryLimits.images,
  imageBytes: entryLimits.imageBytes,
  tags: entryLimits.tags,
  tagChars: entryLimits.tagChars,
  metadataBytes: entryLimits.metadataBytes,
  metadataKeyChars: entryLimits.metadataKeyChars,
  idsPerFetch: entryLimits.itemsPerCall,
  pageSize: entryLimits.pageSize,
  maxOffset: entryLimits.maxOffset,
  batchItems: entryLimits.itemsPerCall,
  titleChars: entryLimits.titleChars,
  kindChars: entryLimits.kindChars,
  filterKinds: entryLimits.filterKinds,
} as const;
const noNul = (value: string) => !value.includes("\u0000");

export const threadIdSchema = z
  .string()
  .min(1, "thread_id must not be empty")
  .max(limits.threadIdChars, `thread_id must be at most ${limits.threadIdChars} characters`)
  .refine(noNul, "thread_id must not contain NUL characters")
  .refine((value) => value.trim().length > 0, "thread_id must not be blank")
  .describe("Groups related entries, e.g. a session, project or task id.");

export const sourceSchema = z
  .enum(["user", "agent"])
  .describe("Who wrote the text: 'user' for a person's words, 'agent' for an agent's own output.");

export const textSchema = z
  .string()
  .max(limits.textChars, `text must be at most ${limits.textChars} characters`)
  .refine((value) => value.trim().length > 0, "text must not be empty")
  .refine(noNul, "text must not contain NUL characters")
  .describe("The content to remember. Markdown headings become navigable sections.");

const base64Pattern = /^[A-Za-z0-9+/]*={0,2}$/;

/** How many bytes base64 `data` decodes to, without decoding it (the store counts decoded bytes). */
const decodedBytes = (data: string): number =>
  Math.floor((data.length * 3) / 4) - (data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0);

export const imageSchema = z
  .object({
    data: z
      .string()
      .min(1, "image data must not be empty")
      .max(Math.ceil((limits.imageBytes * 4) / 3) + 4, `an image must be at most ${limits.imageBytes} bytes`)
      .refine((value) => base64Pattern.test(value), "image data must be base64")
      .refine(
        (value) => decodedBytes(value) <= limits.imageBytes,
        `an image must be at most ${limits.imageBytes} bytes`,
      ),
    mime_type: z.enum(imageMimeTypes, { error: "mime_type must be image/png, image/jpeg, image/gif or image/webp" }),
  })
  .strict();

/** The first bytes of base64 `data`: enough to read an image's signature without decoding the whole image. */
const headOfBase64 = (data: string): Uint8Array =>
  new Uint8Array(Buffer.from(data.slice(0, 1400).replace(/=+$/, ""), "base64"));

/**
 * A list of images whose bytes begin with the signature of their declared
 * type: an SVG, an HTML page or anything else labelled image/png is refused
 * here, naming the image's position and what its bytes are.
 */
export const imagesSchema = z
  .array(imageSchema)
  .max(limits.images, `at most ${limits.images} images per entry`)
  .superRefine((images, context) => {
    images.forEach((image, index) => {
      if (!base64Pattern.test(image.data)) return;
      // 1,400 base64 characters decode to the 1,024 bytes describeImageBytes looks at for a textual format.
      const head = headOfBase64(image.data);
      if (detectImageType(head) === image.mime_type) return;
      // The path names the image ("at images[1]", or "at entries[2].images[1]" in a batch) after the message.
      context.addIssue({
        code: "custom",
        message: `the bytes are ${describeImageBytes(head)}, not the declared ${image.mime_type}`,
        path: [index],
      });
    });
  });

/**
 * A JSON object: any object that is not an array. Not `z.record`, whose
 * plain-object test reads the value's `constructor` and throws on an own
 * `constructor` key.
 */
export const jsonObject = () => z.object({}).catchall(z.unknown());

/**
 * `schema`, preceded by the shape check of json-shape.ts (nesting depth,
 * reserved keys). The check runs on the raw input, before any parsing that
 * recurses or copies keys (a `__proto__` key would otherwise be swallowed
 * into a prototype), and stops there when it fails.
 */
export function boundedJson<T extends z.ZodType>(name: string, schema: T) {
  return z.preprocess((value, context) => {
    const problem = jsonShapeProblem(value, name);
    if (problem !== undefined) context.addIssue({ code: "custom", message: problem, input: value });
    return value;
  }, schema);
}

const metadataValue = z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(z.unknown()), jsonObject()]);

/** What is wrong with the top-level keys or the size of a (shape-checked) metadata object, or undefined. */
function metadataSizeProblem(metadata: Record<string, unknown>): string | undefined {
  const badKey = Object.keys(metadata).find((key) => key.length < 1 || key.length > limits.metadataKeyChars);
  if (badKey !== undefined)
    return `metadata keys must be 1 to ${limits.metadataKeyChars} characters (got one of ${badKey.length})`;
  // Safe to stringify: the shape check bounded the depth.
  const bytes = Buffer.byteLength(JSON.stringify(metadata));
  if (bytes > limits.metadataBytes)
    return `metadata must be at most ${limits.metadataBytes} bytes as JSON (got ${bytes})`;
  return undefined;
}

export const metadataSchema = boundedJson(
  "metadata",
  z
    .object({})
    .catchall(metadataValue)
    .superRefine((metadata, context) => {
      const problem = metadataSizeProblem(metadata);
      if (problem !== undefined) context.addIssue({ code: "custom", message: problem });
    }),
).describe(
  `Free-form JSON object, at most ${limits.metadataBytes / 1024} KiB as JSON and ${maxJsonDepth} levels deep; the keys "__proto__" and "constructor" are reserved. Conventional keys: status, agent_name, task_name, project, report_type.`,
);

export const tagsSchema = z
  .array(
    z
      .string()
      .min(1, "tags must not be empty")
      .max(limits.tagChars, `a tag must be at most ${limits.tagChars} characters`)
      .refine(noNul, "tags must not contain NUL characters"),
  )
  .max(limits.tags, `at most ${limits.tags} tags`)
  .describe("Labels for filtering; stored lowercased and trimmed.");

export const visibilitySchema = z
  .enum(["private", "shared", "tenant"])
  .describe(
    "Who may read the entry: 'private' (only you, the default), 'shared' (you and those you grant), 'tenant' (everyone in your organisation).",
  );

export const idempotencyKeySchema = z
  .string()
  .min(1, "idempotency_key must not be empty")
  .max(200, "idempotency_key must be at most 200 characters")
  .refine(noNul, "idempotency_key must not contain NUL characters")
  .describe(
    "Makes the call exactly-once: a retry with the same key returns the first result and changes nothing, for 24 hours by default (the store's idempotency window); after that the key is new again. Use a fresh random value per intended change.",
  );

const isoInstantPattern = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2}))?$/i;

/**
 * An instant as ISO 8601: a date (midnight UTC) or a date-time with its
 * offset (Z or ±hh:mm), so the instant never depends on a server's zone.
 */
export const isoInstant = (name: string) =>
  z
    .string()
    .max(40, `${name} must be an ISO 8601 date or date-time with an offset, e.g. 2026-01-31 or 2026-01-31T12:00:00Z`)
    .refine(
      (value) => isoInstantPattern.test(value) && !Number.isNaN(Date.parse(value)),
      `${name} must be an ISO 8601 date or date-time with an offset, e.g. 2026-01-31 or 2026-01-31T12:00:00Z`,
    );

/** The valid-time fields of a write: when the stated fact holds (valid_from ≤ t < valid_to). */
const validityFields = {
  valid_from: isoInstant("valid_from")
    .nullable()
    .optional()
    .describe("When what the text states starts to hold (ISO 8601); omitted or null: since always."),
  valid_to: isoInstant("valid_to")
    .nullable()
    .optional()
    .describe("When it stops holding (exclusive, ISO 8601); omitted or null: still holds. Must be after valid_from."),
};

/**
 * A kind's name. Which kinds a store accepts is its configuration
 * (STORE_ENTRY_KINDS), so the store decides membership and its error lists
 * them; the gateway only refuses what can be no kind at all.
 */
export const kindSchema = z
  .string()
  .max(limits.kindChars, `a kind is at most ${limits.kindChars} characters`)
  .regex(
    /^[a-z][a-z0-9_-]{0,31}$/,
    `a kind is a lowercase letter, then up to ${limits.kindChars - 1} lowercase letters, digits, "_" or "-"`,
  );

/** The kind and title of a write. */
const kindFields = {
  kind: kindSchema
    .optional()
    .describe(
      'What the entry is: "note" (the default), "document", "prompt", "plan", "report", or a kind the operator configured ("memory" is reserved for put_memory).',
    ),
  title: z
    .string()
    .max(limits.titleChars, `title must be at most ${limits.titleChars} characters`)
    .refine(noNul, "title must not contain NUL characters")
    .refine((value) => !/[\r\n\u2028\u2029]/.test(value), "title must be one line")
    .optional()
    .describe("A one-line title, shown in every result and filterable by title_prefix; empty: none."),
  prompt_arguments: promptArgumentsSchema
    .optional()
    .describe(
      'Only with kind "prompt": the arguments its text\'s {{name}} placeholders take; served as MCP prompts/list and prompts/get.',
    ),
};

/** valid_from before valid_to when both are given. */
export const isForwardValidity = (value: {
  valid_from?: string | null | undefined;
  valid_to?: string | null | undefined;
}) => value.valid_from == null || value.valid_to == null || Date.parse(value.valid_from) < Date.parse(value.valid_to);
export const backwardValidity = { message: "valid_from must be before valid_to", path: ["valid_from"] };

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

export const isoDate = (name: string) =>
  z
    .string()
    .max(40, `${name} must be an ISO 8601 date or date-time`)
    .refine((value) => !Number.isNaN(Date.parse(value)), `${name} must be an ISO 8601 date or date-time`)
    .describe(`${name} as ISO 8601, e.g. 2026-01-31 or 2026-01-31T12:00:00Z.`);

/** A collection id: a full UUID as create_collection returned it. */
export const collectionIdSchema = z
  .string()
  .max(36, "a collection id is a full UUID")
  .regex(
    /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/,
    "a collection id is a full UUID",
  )
  .describe("A collection's id, as create_collection or list_collections returned it.");

export const entryIdSchema = z
  .string()
  .min(8, "an id or prefix needs at least 8 hex characters")
  .max(36, "an id is at most 36 characters")
  .describe("Full entry id, or a unique prefix of 8 to 31 hex characters.");

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
  ].some((field) => change[field] !== undefined);
const changeRequired =
  "give at least one of text, metadata, tags, images, visibility, valid_from, valid_to, kind, title or prompt_arguments to change";

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

export const getStatisticsInput = z.object({ thread_id: threadIdSchema.optional() }).strict();

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
    context_id: entryIdSchema,
    decision: z
      .enum(["approve", "reject"])
      .describe("approve: the entry becomes verified. reject: it becomes rejected and is left out of searches."),
    expected_version: versionSchema.describe(
      "The version you reviewed; if the entry changed since, the review is refused.",
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
  })
  .strict();
