/** Input and output schemas of the collection tools; the store holds collections to the same limits (services/store/src/collections/collection-model.ts). */
import { z } from "zod";
import { collectionIdSchema, entryIdSchema, idempotencyKeySchema } from "./input-schemas.js";
import { entryListingOutput } from "./output-schemas.js";

export const collectionToolLimits = {
  nameChars: 200,
  descriptionChars: 2_000,
  entryIds: 1_000,
  pageSize: 100,
} as const;

const noNul = (value: string) => !value.includes("\u0000");

const nameSchema = z
  .string()
  .min(1, "name must not be empty")
  .max(collectionToolLimits.nameChars, `name must be at most ${collectionToolLimits.nameChars} characters`)
  .refine(noNul, "name must not contain NUL characters")
  .describe("One line naming the collection, e.g. 'Onboarding reading list'.");

const descriptionSchema = z
  .string()
  .max(
    collectionToolLimits.descriptionChars,
    `description must be at most ${collectionToolLimits.descriptionChars} characters`,
  )
  .refine(noNul, "description must not contain NUL characters")
  .describe("What the collection is for; empty for none.");

const expectedVersionSchema = z
  .number()
  .int("expected_version must be a whole number")
  .min(1, "versions start at 1")
  .max(2_147_483_647, "expected_version is too large")
  .describe(
    "Change it only if it is still at this version (compare-and-set); a mismatch is refused with the current one.",
  );

const contextIdsSchema = z
  .array(entryIdSchema)
  .min(1, "give at least one id")
  .max(collectionToolLimits.entryIds, `at most ${collectionToolLimits.entryIds} ids per call`);

const pageFields = {
  limit: z
    .number()
    .int()
    .min(1)
    .max(collectionToolLimits.pageSize, `limit must be at most ${collectionToolLimits.pageSize}`)
    .optional()
    .describe("Page size, default 20."),
  cursor: z.string().max(2_000).optional().describe("next_cursor of the previous page; omitted for the first."),
};

export const createCollectionInput = z
  .object({
    name: nameSchema,
    description: descriptionSchema.optional(),
    idempotency_key: idempotencyKeySchema.optional(),
  })
  .strict();

export const updateCollectionInput = z
  .object({
    collection_id: collectionIdSchema,
    name: nameSchema.optional(),
    description: descriptionSchema.optional(),
    expected_version: expectedVersionSchema.optional(),
    idempotency_key: idempotencyKeySchema.optional(),
  })
  .strict()
  .refine(
    (value) => value.name !== undefined || value.description !== undefined,
    "give a new name, a new description, or both",
  );

export const deleteCollectionInput = z
  .object({
    collection_id: collectionIdSchema,
    expected_version: expectedVersionSchema.optional(),
    idempotency_key: idempotencyKeySchema.optional(),
  })
  .strict();

export const listCollectionsInput = z
  .object({
    owner: z
      .string()
      .min(1)
      .max(256)
      .refine(noNul, "owner must not contain NUL characters")
      .optional()
      .describe("Only this owner's collections; omitted: every collection you can see."),
    ...pageFields,
  })
  .strict();

export const getCollectionInput = z
  .object({
    collection_id: collectionIdSchema,
    ...pageFields,
    include_quarantined: z
      .boolean()
      .optional()
      .describe("Also list (and count) quarantined and rejected members; default false."),
  })
  .strict();

export const addToCollectionInput = z
  .object({
    collection_id: collectionIdSchema,
    context_ids: contextIdsSchema.describe("Entries to add, in this order (full ids or unique prefixes)."),
    position: z
      .number()
      .int()
      .min(1, "positions start at 1")
      .max(2_147_483_647)
      .optional()
      .describe("Insert before the member now at this place (1 = first); omitted or past the end: at the end."),
    idempotency_key: idempotencyKeySchema.optional(),
  })
  .strict();

export const removeFromCollectionInput = z
  .object({
    collection_id: collectionIdSchema,
    context_ids: contextIdsSchema.describe("Members to take out; the entries themselves stay."),
    idempotency_key: idempotencyKeySchema.optional(),
  })
  .strict();

export const reorderCollectionInput = z
  .object({
    collection_id: collectionIdSchema,
    context_ids: contextIdsSchema.describe(
      "Members in the order they are to come first; members not listed follow in their current order. List every member to set the whole order.",
    ),
    idempotency_key: idempotencyKeySchema.optional(),
  })
  .strict();

export const collectionOutput = z.object({
  collection_id: z.string(),
  name: z.string(),
  description: z.string(),
  owner: z.string(),
  version: z.number(),
  member_count: z.number().describe("Members you can see (quarantined ones only with include_quarantined)."),
  created_at: z.string().nullable(),
  updated_at: z.string().nullable(),
});

export const collectionResultOutput = z.object({ collection: collectionOutput, message: z.string() });

export const deleteCollectionOutput = z.object({
  success: z.boolean(),
  collection_id: z.string(),
  name: z.string(),
  removed_members: z.number(),
  revoked_grants: z.number(),
  message: z.string(),
});

export const listCollectionsOutput = z.object({
  collections: z.array(collectionOutput),
  count: z.number(),
  has_more: z.boolean(),
  next_cursor: z.string().nullable(),
});

export const getCollectionOutput = z.object({
  collection: collectionOutput,
  members: z.array(
    z.object({
      position: z.number().describe("1-based place among the members you can see."),
      added_at: z.string().nullable(),
      added_by: z.string(),
      entry: entryListingOutput,
    }),
  ),
  count: z.number(),
  has_more: z.boolean(),
  next_cursor: z.string().nullable(),
});

export const addToCollectionOutput = z.object({
  collection: collectionOutput,
  added_ids: z.array(z.string()),
  already_member_ids: z.array(z.string()).describe("Already members: left where they were."),
  now_shared_ids: z
    .array(z.string())
    .describe("Your private entries that became shared because the collection is shared (its grantees can read them)."),
  not_opened_ids: z
    .array(z.string())
    .describe(
      "In a shared collection: entries of others that its sharing does not open (a collection shares only your own entries); its grantees see them only if their owners let them.",
    ),
  message: z.string(),
});

export const removeFromCollectionOutput = z.object({
  collection: collectionOutput,
  removed_ids: z.array(z.string()),
  message: z.string(),
});
