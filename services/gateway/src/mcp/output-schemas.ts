import { z } from "zod";
import { trustStates } from "../trust/trust-state.js";
import { reviewedHandoff, reviewedSessionEvent } from "./workflow-trust-schemas.js";

const trustState = z
  .enum(trustStates)
  .describe(
    "unverified, verified, quarantined (the screen found instruction-shaped content) or rejected (by a reviewer).",
  );

const promptArgumentOutput = z.object({
  name: z.string(),
  description: z.string().nullable(),
  required: z.boolean(),
});

const entryCommon = {
  id: z.string(),
  thread_id: z.string(),
  source: z.enum(["user", "agent"]),
  owner: z.string(),
  visibility: z.enum(["private", "shared", "tenant"]),
  content_type: z.string(),
  kind: z.string().describe('What the entry is: "note", "document", "prompt", "plan", "report" or a configured kind.'),
  title: z.string().nullable().describe("The entry's title; null when it has none."),
  prompt_name: z.string().nullable().describe("A prompt's name, which its owner gets it by; null for none."),
  prompt_arguments: z.array(promptArgumentOutput).describe("A prompt's declared arguments; empty for other kinds."),
  artifacts: z
    .array(z.string())
    .describe("SHA-256s of the artifacts it links; get_artifact reads those its owner uploaded."),
  summary: z.string(),
  metadata: z.record(z.string(), z.unknown()),
  tags: z.array(z.string()),
  version: z.number(),
  trust_state: trustState,
  trust_reasons: z.array(z.string()).describe("What the write-time screen found, as <field>:<rule>."),
  created_at: z.string().nullable(),
  updated_at: z.string().nullable(),
  valid_from: z.string().nullable().describe("When what the entry states starts to hold; null: since always."),
  valid_to: z.string().nullable().describe("When it stops holding (exclusive); null: still holds."),
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
  trust_state: trustState,
  trust_reasons: z.array(z.string()),
  previously_deleted: z
    .boolean()
    .describe("The same text was deleted from this thread before; it was stored again anyway."),
  message: z.string(),
});

export const entryOutput = z.object({
  ...entryCommon,
  text: z.string(),
  content_hash: z.string(),
  images: z.array(
    z.object({ ordinal: z.number(), mime_type: z.string(), byte_size: z.number(), data: z.string().optional() }),
  ),
  node_summaries: z.array(
    z.object({
      node_id: z.string(),
      heading: z.string(),
      level: z.number(),
      start: z.number(),
      end: z.number(),
      summary: z.string(),
    }),
  ),
  chunk_count: z.number(),
  embedding_model: z.string(),
});

export const getContextByIdsOutput = z.object({
  entries: z.array(entryOutput),
  missing: z.array(z.string()),
  withheld: z
    .array(z.object({ id: z.string(), trust_state: trustState }))
    .describe("Entries you may read that were left out for their trust state; fetch them with include_quarantined."),
  not_returned: z
    .array(z.object({ id: z.string(), size_bytes: z.number(), reason: z.string() }))
    .describe(
      "Entries you may read that were left out to keep the reply within its size budget (32 MiB); fetch them in another call.",
    ),
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
      trust_state: trustState.optional(),
      previously_deleted: z.boolean().optional(),
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
  trust_state: trustState,
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

export const deleteBatchOutput = deleteOutput.extend({
  matched_count: z
    .number()
    .optional()
    .describe(
      "With criteria: the entries you can see that match them (at least this many when matched_count_exact is false).",
    ),
  matched_count_exact: z.boolean().optional(),
  dry_run: z.boolean().optional().describe("With criteria: true when nothing was deleted, only counted."),
  has_more: z
    .boolean()
    .optional()
    .describe(
      "With criteria: more entries match than this call deleted (at most 100 per call); call again to continue.",
    ),
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
  daily: z.array(
    z.object({
      date: z.string(),
      created: z.number(),
      created_by_users: z.number(),
      created_by_agents: z.number(),
      by_trust_state: z.object({
        unverified: z.number(),
        verified: z.number(),
        quarantined: z.number(),
        rejected: z.number(),
      }),
      writes: z.number(),
    }),
  ),
});

const grantOutput = z.object({
  grant_id: z.string(),
  context_id: z.string().nullable(),
  thread_id: z.string().nullable(),
  collection_id: z.string().nullable(),
  grantee_kind: z.enum(["subject", "group"]),
  grantee: z.string(),
  permission: z.enum(["read", "write"]),
});

export const shareOutput = z.object({
  grants: z.array(grantOutput),
  now_shared_ids: z.array(z.string()),
  message: z.string(),
});

export const listGrantsOutput = z.object({
  grants: z.array(grantOutput.extend({ grantor: z.string(), created_at: z.string().nullable() })),
  count: z.number(),
  offset: z.number(),
  has_more: z.boolean(),
});

export const unshareOutput = z.object({ revoked_count: z.number(), message: z.string() });

const versionOutput = z.object({
  version: z.number(),
  current: z.boolean(),
  redacted: z
    .boolean()
    .describe(
      "The version was private while it was current and you are not its owner: its content (text, metadata, tags, summary, valid time and content_hash) is left out.",
    ),
  text: z.string(),
  content_hash: z.string().optional().describe("SHA-256 of the version's text; absent when the version is redacted."),
  summary: z.string(),
  metadata: z.record(z.string(), z.unknown()),
  tags: z.array(z.string()),
  visibility: z.enum(["private", "shared", "tenant"]),
  trust_state: trustState,
  change: z.string(),
  restored_from: z.number().nullable(),
  written_by: z.string(),
  written_at: z.string().nullable(),
  superseded_by: z.string().nullable(),
  superseded_at: z.string().nullable(),
  valid_from: z.string().nullable(),
  valid_to: z.string().nullable(),
  kind: z.string().describe("The kind this version had."),
  title: z.string().nullable().describe("The title this version had; null for none, and when redacted."),
  prompt_name: z.string().nullable().describe("The prompt name this version had; null for none, and when redacted."),
  prompt_arguments: z.array(promptArgumentOutput).describe("The prompt arguments this version declared."),
  artifacts: z.array(z.string()).describe("The artifacts this version linked (SHA-256s); a restore brings them back."),
});

export const historyOutput = z.object({
  context_id: z.string(),
  thread_id: z.string(),
  owner: z.string(),
  latest_version: z.number(),
  deleted: z.boolean(),
  tombstone: z
    .object({
      content_hash: z.string(),
      deleted_by: z.string(),
      deleted_at: z.string().nullable(),
      reason: z.string(),
      history_purged_at: z.string().nullable(),
    })
    .nullable(),
  versions: z.array(versionOutput),
  count: z.number(),
  limit: z.number(),
  offset: z.number(),
  has_more: z.boolean(),
});

export const restoreOutput = z.object({
  success: z.boolean(),
  context_id: z.string(),
  restored_version: z.number(),
  version: z.number(),
  content_hash: z.string(),
  trust_state: trustState,
  message: z.string(),
});

/** A review's memory: set when the entry is a named memory's mirror (kind memory), whose current revision the review judges. */
const reviewedMemory = z
  .object({ namespace: z.string(), key: z.string(), owner: z.string(), version: z.number() })
  .nullable();

export const reviewQueueOutput = z.object({
  entries: z.array(
    z.object({
      id: z.string(),
      thread_id: z.string().nullable().describe("null for a handoff or a session event."),
      source: z.enum(["user", "agent"]).nullable(),
      owner: z.string(),
      updated_by: z.string(),
      visibility: z.enum(["private", "shared", "tenant"]).nullable(),
      version: z.number(),
      kind: z.string().describe("The entry's kind, or handoff, or session_event."),
      memory: reviewedMemory,
      handoff: reviewedHandoff,
      session_event: reviewedSessionEvent,
      trust_state: trustState,
      trust_reasons: z.array(z.string()),
      text: z.string(),
      summary: z.string(),
      metadata: z.record(z.string(), z.unknown()),
      tags: z.array(z.string()),
      artifacts: z
        .array(z.string())
        .describe(
          "SHA-256s of the artifacts the entry or handoff links (get_artifact reads them); empty for a session event.",
        ),
      created_at: z.string().nullable(),
      updated_at: z.string().nullable(),
      reviewed_by: z.string().nullable(),
      reviewed_at: z.string().nullable(),
      review_note: z.string().nullable(),
    }),
  ),
  count: z.number(),
  limit: z.number(),
  offset: z.number(),
  has_more: z.boolean(),
});

export const reviewOutput = z.object({
  success: z.boolean(),
  context_id: z.string(),
  version: z.number(),
  previous_state: trustState,
  trust_state: trustState,
  reviewed_by: z.string(),
  reviewed_at: z.string().nullable(),
  memory: reviewedMemory,
  handoff: z.object({ id: z.string(), title: z.string() }).nullable(),
  session_event: reviewedSessionEvent.unwrap().omit({ namespace: true }).nullable(),
  message: z.string(),
});

export const auditLogOutput = z.object({
  records: z.array(
    z.object({
      seq: z.number(),
      id: z.string(),
      at: z.string().nullable(),
      actor: z.string(),
      action: z.string(),
      outcome: z.string(),
      target_ids: z.array(z.string()),
      before_hashes: z.array(z.string()),
      after_hashes: z.array(z.string()),
      request_id: z.string(),
      details: z.record(z.string(), z.unknown()),
      previous_hash: z.string(),
      hash: z.string(),
    }),
  ),
  count: z.number(),
  has_more: z.boolean(),
  next_before_seq: z.number().nullable(),
  chain: z
    .object({
      records: z.number(),
      intact: z.boolean(),
      broken: z.object({ seq: z.number(), id: z.string(), problem: z.string() }).nullable(),
      head_hash: z.string(),
    })
    .optional(),
});
