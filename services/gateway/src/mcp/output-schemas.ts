import { z } from "zod";

const entryCommon = {
  id: z.string(),
  thread_id: z.string(),
  source: z.enum(["user", "agent"]),
  owner: z.string(),
  visibility: z.enum(["private", "shared", "tenant"]),
  content_type: z.string(),
  summary: z.string(),
  metadata: z.record(z.string(), z.unknown()),
  tags: z.array(z.string()),
  version: z.number(),
  created_at: z.string().nullable(),
  updated_at: z.string().nullable(),
};

export const writeAckOutput = z.object({
  success: z.boolean(),
  context_id: z.string(),
  thread_id: z.string(),
  version: z.number(),
  content_hash: z.string(),
  deduplicated: z.boolean(),
  created_at: z.string(),
  updated_at: z.string(),
  message: z.string(),
});

export const entryOutput = z.object({
  ...entryCommon,
  text: z.string(),
  content_hash: z.string(),
  images: z.array(z.object({ ordinal: z.number(), mime_type: z.string(), byte_size: z.number(), data: z.string().optional() })),
  node_summaries: z.array(z.object({ node_id: z.string(), heading: z.string(), level: z.number(), start: z.number(), end: z.number(), summary: z.string() })),
  chunk_count: z.number(),
  embedding_model: z.string(),
});

export const getContextByIdsOutput = z.object({
  entries: z.array(entryOutput),
  missing: z.array(z.string()),
});

export const entryListingOutput = z.object({
  ...entryCommon,
  preview: z.string(),
  text_length: z.number(),
  is_truncated: z.boolean(),
});

export const searchContextOutput = z.object({
  results: z.array(entryListingOutput),
  count: z.number(),
  limit: z.number(),
  offset: z.number(),
  has_more: z.boolean(),
});
