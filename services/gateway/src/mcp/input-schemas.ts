// The fields tools' inputs are built from, with the limits every tool enforces: ids, text, images, metadata, tags, validity, kinds.
import { z } from "zod";
import { describeImageBytes, detectImageType, entryLimits, imageMimeTypes } from "@context-hub/common";
import { jsonShapeProblem, maxJsonDepth } from "./json-shape.js";
import { promptArgumentsSchema, promptNameSchema } from "./prompt-argument-schemas.js";

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
  artifactLinks: entryLimits.artifactLinks,
} as const;
export const noNul = (value: string) => !value.includes("\u0000");

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

export const metadataValue = z.union([
  z.string(),
  z.number(),
  z.boolean(),
  z.null(),
  z.array(z.unknown()),
  jsonObject(),
]);

/** What is wrong with the top-level keys or the size of a (shape-checked) metadata object, or undefined. */
export function metadataSizeProblem(metadata: Record<string, unknown>): string | undefined {
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

/** The artifacts an entry links, by the SHA-256 of their bytes; duplicates collapse. */
export const artifactLinksSchema = z
  .array(
    z
      .string()
      .length(64, "each artifact is a SHA-256 as 64 hex digits")
      .regex(/^[0-9a-fA-F]{64}$/, "each artifact is a SHA-256 as 64 hex digits"),
  )
  .max(limits.artifactLinks * 5, `at most ${limits.artifactLinks} artifacts`)
  .refine(
    (list) => new Set(list.map((sha256) => sha256.toLowerCase())).size <= limits.artifactLinks,
    `at most ${limits.artifactLinks} distinct artifacts`,
  );

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
export const validityFields = {
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

/** The kind, title, prompt arguments and linked artifacts of a write. */
export const kindFields = {
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
  prompt_name: promptNameSchema
    .optional()
    .describe(
      'Only with kind "prompt": the name you get it by in MCP prompts/get (to everyone else who may read it, it is listed under its entry id); unique among your prompts.',
    ),
  prompt_arguments: promptArgumentsSchema
    .optional()
    .describe(
      'Only with kind "prompt": the arguments its text\'s {{name}} placeholders take; served as MCP prompts/list and prompts/get.',
    ),
  artifacts: artifactLinksSchema
    .optional()
    .describe(
      "SHA-256s of files you uploaded (put_artifact) that the entry links: whoever may see the entry may read them.",
    ),
};

/** valid_from before valid_to when both are given. */
export const isForwardValidity = (value: {
  valid_from?: string | null | undefined;
  valid_to?: string | null | undefined;
}) => value.valid_from == null || value.valid_to == null || Date.parse(value.valid_from) < Date.parse(value.valid_to);
export const backwardValidity = { message: "valid_from must be before valid_to", path: ["valid_from"] };

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
