/** Input and output schemas of the publication tools; the URI rules are the store's own (packages/common/src/resource-uri.ts), checked here first for a clear early error. */
import { parseResourceUri, resourceUriMaxChars } from "@context-hub/common";
import { z } from "zod";
import { idempotencyKeySchema } from "./input-schemas.js";

export const publicationToolLimits = { descriptionChars: 500, pageSize: 100 } as const;

const noNul = (value: string) => !value.includes("\u0000");

const uriSchema = z
  .string()
  .max(resourceUriMaxChars, `uri must be at most ${resourceUriMaxChars} characters`)
  .superRefine((uri, context) => {
    try {
      parseResourceUri(uri);
    } catch (error) {
      context.addIssue({ code: "custom", message: error instanceof Error ? error.message : String(error) });
    }
  });

export const publishResourceInput = z
  .object({
    uri: uriSchema.describe(
      "The URI to publish under, a scheme of your own, e.g. docs://handbook/on-call; a template such as report://{team}/weekly serves an entry's text with each {{team}} placeholder filled from the URI read. Publishing a URI you already published moves it.",
    ),
    id: z
      .string()
      .max(36, "id is a full entry id")
      .regex(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/, "id is a full entry id")
      .describe("The full id of an entry you can read."),
    image: z
      .number()
      .int("image is a whole number")
      .min(0, "images are numbered from 0")
      .max(1_000)
      .optional()
      .describe("Serve this image of the entry (position from 0) instead of its text, as a blob."),
    artifact: z
      .string()
      .max(64, "artifact is the hex SHA-256 of a file the entry links")
      .regex(/^[0-9a-f]{64}$/, "artifact is the hex SHA-256 of a file the entry links")
      .optional()
      .describe("Serve this file the entry links (hex SHA-256) instead of its text."),
    description: z
      .string()
      .max(
        publicationToolLimits.descriptionChars,
        `description must be at most ${publicationToolLimits.descriptionChars} characters`,
      )
      .refine(noNul, "description must not contain NUL characters")
      .optional()
      .describe("One line resources/list shows beside the URI."),
    idempotency_key: idempotencyKeySchema.optional(),
  })
  .strict()
  .refine((value) => value.image === undefined || value.artifact === undefined, "give image or artifact, not both");

export const unpublishResourceInput = z
  .object({
    uri: z
      .string()
      .min(1, "uri must not be empty")
      .max(resourceUriMaxChars, `uri must be at most ${resourceUriMaxChars} characters`)
      .describe("A URI (or template) you published, exactly as published."),
    idempotency_key: idempotencyKeySchema.optional(),
  })
  .strict();

export const listPublishedResourcesInput = z
  .object({
    templates_only: z.boolean().optional().describe("Only URI templates; default false."),
    limit: z
      .number()
      .int()
      .min(1)
      .max(publicationToolLimits.pageSize, `limit must be at most ${publicationToolLimits.pageSize}`)
      .optional()
      .describe("Page size, default 20."),
    cursor: z.string().max(2_000).optional().describe("next_cursor of the previous page; omitted for the first."),
  })
  .strict();

export const publicationOutput = z.object({
  uri: z.string(),
  template: z.boolean().describe("Whether uri holds {name} expressions."),
  id: z.string().describe("The entry it serves."),
  serves: z.enum(["text", "image", "artifact"]),
  image: z.number().nullable(),
  artifact: z.string().nullable(),
  description: z.string(),
  created_at: z.string().nullable(),
  updated_at: z.string().nullable(),
});

export const publishResourceOutput = z.object({
  publication: publicationOutput,
  replaced: z.boolean().describe("The URI was yours already and now serves this target."),
  message: z.string(),
});

export const unpublishResourceOutput = z.object({
  success: z.boolean(),
  publication: publicationOutput,
  message: z.string(),
});

export const listPublishedResourcesOutput = z.object({
  publications: z.array(publicationOutput),
  count: z.number(),
  has_more: z.boolean(),
  next_cursor: z.string().nullable(),
});
