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

const itemError = z.object({ code: z.string(), message: z.string() });

export const storeBatchOutput = z.object({
  atomic: z.boolean(),
  stored_count: z.number(),
  failed_count: z.number(),
  results: z.array(
    z.object({
      index: z.number(),
      success: z.boolean(),
      context_id: z.string().optional(),
      version: z.number().optional(),
      content_hash: z.string().optional(),
      deduplicated: z.boolean().optional(),
      error: itemError.optional(),
    }),
  ),
});

export const updateAckOutput = z.object({
  success: z.boolean(),
  context_id: z.string(),
  version: z.number(),
  content_hash: z.string(),
  updated_at: z.string(),
  message: z.string(),
});

export const updateBatchOutput = z.object({
  atomic: z.boolean(),
  updated_count: z.number(),
  failed_count: z.number(),
  results: z.array(
    z.object({
      context_id: z.string(),
      success: z.boolean(),
      version: z.number().optional(),
      content_hash: z.string().optional(),
      error: itemError.optional(),
    }),
  ),
});

export const deleteOutput = z.object({
  deleted_count: z.number(),
  deleted_ids: z.array(z.string()),
  failed: z.array(z.object({ context_id: z.string(), code: z.string(), message: z.string() })),
});

export const listThreadsOutput = z.object({
  threads: z.array(
    z.object({
      thread_id: z.string(),
      entry_count: z.number(),
      user_entries: z.number(),
      agent_entries: z.number(),
      first_at: z.string().nullable(),
      last_at: z.string().nullable(),
    }),
  ),
  total: z.number(),
  limit: z.number(),
  offset: z.number(),
  has_more: z.boolean(),
});

export const statisticsOutput = z.object({
  thread_id: z.string().nullable(),
  entries: z.number(),
  threads: z.number(),
  user_entries: z.number(),
  agent_entries: z.number(),
  multimodal_entries: z.number(),
  images: z.number(),
  chunks: z.number(),
  text_bytes: z.number(),
  owned_entries: z.number(),
  oldest_at: z.string().nullable(),
  newest_at: z.string().nullable(),
});

export const shareOutput = z.object({
  grants: z.array(
    z.object({
      grant_id: z.string(),
      context_id: z.string().nullable(),
      thread_id: z.string().nullable(),
      grantee_kind: z.enum(["subject", "group"]),
      grantee: z.string(),
      permission: z.enum(["read", "write"]),
    }),
  ),
  now_shared_ids: z.array(z.string()),
  message: z.string(),
});

export const unshareOutput = z.object({ revoked_count: z.number(), message: z.string() });
