import type { JsonObject } from "../../clients/json-value.js";
import { ContextHubError, isErrorCode } from "@context-hub/common";
import { resolveIdempotency } from "../../idempotency.js";
import type { EntryChange, ItemOutcome, Visibility, WriteAck } from "../../write-path.js";
import type { PromptArgumentInput } from "../../write-types.js";
import {
  deleteContextBatchInput,
  deleteContextInput,
  updateContextBatchInput,
  updateContextInput,
} from "../write-schemas.js";
import { deleteBatchOutput, deleteOutput, updateAckOutput, updateBatchOutput } from "../output-schemas.js";
import { defineTool, destructiveTool } from "../tool-definition.js";
import { findMatching } from "../delete-by-criteria.js";
import { applyMetadataPatch } from "../metadata-patch.js";
import { toImages, toInstant } from "./store-tools.js";

/** Entries one delete_context_batch call deletes by criteria at most (the batch limit). */
const batchSize = 100;

interface ChangeArgs {
  context_id: string;
  text?: string | undefined;
  metadata?: Record<string, unknown> | undefined;
  tags?: string[] | undefined;
  images?: { data: string; mime_type: string }[] | undefined;
  visibility?: Visibility | undefined;
  valid_from?: string | null | undefined;
  valid_to?: string | null | undefined;
  kind?: string | undefined;
  title?: string | undefined;
  prompt_arguments?: PromptArgumentInput[] | undefined;
  artifacts?: string[] | undefined;
  prompt_name?: string | undefined;
  expected_version?: number | undefined;
}

function toChange(args: ChangeArgs): EntryChange {
  return {
    id: args.context_id,
    expectedVersion: args.expected_version,
    text: args.text,
    metadata: args.metadata as JsonObject | undefined,
    tags: args.tags,
    images: args.images === undefined ? undefined : toImages(args.images),
    visibility: args.visibility,
    // Either end given replaces the whole interval; the other end becomes open.
    validity:
      args.valid_from === undefined && args.valid_to === undefined
        ? undefined
        : { validFrom: toInstant(args.valid_from), validTo: toInstant(args.valid_to) },
    kind: args.kind,
    title: args.title,
    promptArguments: args.prompt_arguments,
    artifacts: args.artifacts,
    promptName: args.prompt_name,
  };
}

/** A failed item of a single-item call becomes that call's error, with its code intact. */
export function unwrapSingle(outcome: ItemOutcome<WriteAck> | undefined): WriteAck {
  if (outcome === undefined) throw new ContextHubError("INTERNAL", "the store returned no result for the update");
  if (outcome.ok) return outcome.value;
  const code = isErrorCode(outcome.error.code) ? outcome.error.code : "INTERNAL";
  throw new ContextHubError(code, outcome.error.message);
}

export const updateContextTool = defineTool({
  name: "update_context",
  title: "Update context",
  description: [
    "Change an entry you own or may write: its text, metadata (whole, or some keys with metadata_patch), tags, images, valid-time interval (valid_from/valid_to: giving either replaces both, a missing end is open) or (owner only) visibility.",
    "A new text is re-embedded and re-summarised before the change is stored. Pass expected_version to make sure you are changing what you last read; on a conflict, fetch the entry again and retry with its current version.",
    "Returns the new version and content hash.",
  ].join(" "),
  inputSchema: updateContextInput,
  outputSchema: updateAckOutput,
  annotations: destructiveTool,
  scope: "context:write",
  write: true,
  async handler(args, { principal, peers, clients, writePath }) {
    const idempotency = await resolveIdempotency(peers, principal, "update_context", args);
    const update = async (change: EntryChange) =>
      unwrapSingle((await writePath.update(principal, [change], true, idempotency))[0]);
    const { metadata_patch: patch } = args;
    const ack =
      patch === undefined
        ? await update(toChange(args))
        : await applyMetadataPatch(
            {
              async read() {
                const { entries } = await clients.entries.get(principal, {
                  ids: [args.context_id],
                  includeImages: false,
                  includeQuarantined: true,
                });
                const entry = entries[0];
                // Not visible and not existing read the same, as an update of it would (I-2).
                if (entry === undefined)
                  throw new ContextHubError(
                    "ENTRY_NOT_FOUND",
                    `no entry matches id ${JSON.stringify(args.context_id)}`,
                    { details: { id: args.context_id } },
                  );
                return { metadata: entry.metadata as JsonObject, version: entry.version };
              },
              write: (metadata, version) =>
                update({ ...toChange(args), id: args.context_id, metadata, expectedVersion: version }),
            },
            patch as JsonObject,
            args.expected_version,
          );
    return {
      success: true,
      context_id: ack.id,
      version: ack.version,
      content_hash: ack.contentHash,
      updated_at: ack.updatedAt,
      trust_state: ack.trustState,
      message: `Updated ${ack.id} to version ${ack.version}.${ack.trustState === "quarantined" ? ` It is quarantined (${ack.trustReasons.join(", ")}) until a reviewer approves it.` : ""}`,
    };
  },
});

export const updateContextBatchTool = defineTool({
  name: "update_context_batch",
  title: "Update context in a batch",
  description: [
    "Change up to 100 entries in one call. Atomic by default: every update applies or none does (a permission problem on any entry fails the whole batch).",
    "Set atomic to false to get a result per entry instead. New texts are embedded in one batch before anything is stored.",
  ].join(" "),
  inputSchema: updateContextBatchInput,
  outputSchema: updateBatchOutput,
  annotations: destructiveTool,
  scope: "context:write",
  write: true,
  async handler(args, { principal, peers, writePath }) {
    const atomic = args.atomic ?? true;
    const idempotency = await resolveIdempotency(peers, principal, "update_context_batch", args);
    const outcomes = await writePath.update(principal, args.updates.map(toChange), atomic, idempotency);
    const results = outcomes.map((outcome, index) => {
      const contextId = args.updates[index]?.context_id ?? "";
      return outcome.ok
        ? {
            context_id: outcome.value.id,
            success: true,
            version: outcome.value.version,
            content_hash: outcome.value.contentHash,
          }
        : { context_id: contextId, success: false, error: outcome.error };
    });
    const updated = results.filter((result) => result.success).length;
    return { atomic, updated_count: updated, failed_count: results.length - updated, results };
  },
});

export const deleteContextTool = defineTool({
  name: "delete_context",
  title: "Delete context",
  description: [
    "Delete entries by id, or every entry of a thread that you may change. Deleted text disappears from every search and fetch at once.",
    "Ids that do not exist or that you cannot see are reported under failed; entries in the thread that belong to others and were not shared with you for writing are left alone.",
  ].join(" "),
  inputSchema: deleteContextInput,
  outputSchema: deleteOutput,
  annotations: destructiveTool,
  scope: "context:write",
  async handler(args, { principal, peers, clients }) {
    const idempotency = await resolveIdempotency(peers, principal, "delete_context", args);
    return clients.entries.delete(principal, {
      ids: args.context_ids ?? [],
      threadId: args.thread_id,
      atomic: false,
      reason: args.reason,
      idempotency,
    });
  },
});

export const deleteContextBatchTool = defineTool({
  name: "delete_context_batch",
  title: "Delete context in a batch",
  description: [
    "Delete up to 100 entries by id, or by criteria: thread_ids, source and/or older_than_days (all given must hold).",
    "By criteria, dry_run: true only counts the matches (matched_count); otherwise up to 100 matching entries are deleted per call, newest first, and has_more says to call again.",
    "Not atomic by default (each entry is deleted or reported on its own); set atomic to true to delete all of this call's entries or none. Deleted entries keep a tombstone, as with delete_context.",
  ].join(" "),
  inputSchema: deleteContextBatchInput,
  outputSchema: deleteBatchOutput,
  annotations: destructiveTool,
  scope: "context:write",
  async handler(args, { principal, peers, clients }) {
    const atomic = args.atomic ?? false;
    if (args.context_ids !== undefined) {
      const idempotency = await resolveIdempotency(peers, principal, "delete_context_batch", args);
      return clients.entries.delete(principal, {
        ids: args.context_ids,
        threadId: undefined,
        atomic,
        reason: args.reason,
        idempotency,
      });
    }
    const dryRun = args.dry_run ?? false;
    const matched = await findMatching(clients.entries, principal, args, batchSize, dryRun);
    const counts = { matched_count: matched.total, matched_count_exact: matched.exact };
    if (dryRun) return { deleted_count: 0, deleted_ids: [], failed: [], ...counts, dry_run: true, has_more: false };
    if (matched.ids.length === 0)
      return { deleted_count: 0, deleted_ids: [], failed: [], ...counts, dry_run: false, has_more: false };
    const idempotency = await resolveIdempotency(peers, principal, "delete_context_batch", args);
    const deleted = await clients.entries.delete(principal, {
      ids: matched.ids,
      threadId: undefined,
      atomic,
      reason: args.reason,
      idempotency,
    });
    return { ...deleted, ...counts, dry_run: false, has_more: matched.total > matched.ids.length };
  },
});
