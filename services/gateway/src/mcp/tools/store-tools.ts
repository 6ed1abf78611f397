import type { JsonObject } from "../../clients/json-value.js";
import { resolveIdempotency } from "../../idempotency.js";
import { timeStage, type NewEntryInput, type Source, type Visibility, type WriteAck } from "../../write-path.js";
import type { PromptArgumentInput } from "../../write-types.js";
import { storeContextBatchInput, storeContextInput } from "../write-schemas.js";
import { storeBatchOutput, writeAckOutput } from "../output-schemas.js";
import { additiveTool, defineTool } from "../tool-definition.js";

interface EntryArgs {
  thread_id: string;
  source: Source;
  text: string;
  images?: { data: string; mime_type: string }[] | undefined;
  metadata?: Record<string, unknown> | undefined;
  tags?: string[] | undefined;
  visibility?: Visibility | undefined;
  valid_from?: string | null | undefined;
  valid_to?: string | null | undefined;
  kind?: string | undefined;
  title?: string | undefined;
  prompt_arguments?: PromptArgumentInput[] | undefined;
  artifacts?: string[] | undefined;
  prompt_name?: string | undefined;
}

/** An optional ISO 8601 instant (null: an open end) as a Date; the input schema has checked it parses. */
export const toInstant = (value: string | null | undefined): Date | undefined =>
  value == null ? undefined : new Date(value);

export const toImages = (images: { data: string; mime_type: string }[]) =>
  images.map((image) => ({ mimeType: image.mime_type, data: new Uint8Array(Buffer.from(image.data, "base64")) }));

export function toNewEntry(args: EntryArgs): NewEntryInput {
  return {
    threadId: args.thread_id,
    source: args.source,
    text: args.text,
    metadata: args.metadata as JsonObject | undefined,
    tags: args.tags ?? [],
    images: toImages(args.images ?? []),
    visibility: args.visibility,
    validFrom: toInstant(args.valid_from),
    validTo: toInstant(args.valid_to),
    kind: args.kind,
    title: args.title,
    promptArguments: args.prompt_arguments,
    artifacts: args.artifacts,
    promptName: args.prompt_name,
  };
}

/** What a caller is told about its write, including what it should know about the entry's trust and past. */
function storedMessage(ack: WriteAck): string {
  const parts = [
    ack.deduplicated ? `Identical to your latest entry in this thread; folded into ${ack.id}.` : `Stored as ${ack.id}.`,
  ];
  if (ack.previouslyDeleted) parts.push("The same text was deleted from this thread before; it is stored again.");
  if (ack.trustState === "quarantined") {
    parts.push(
      `It is quarantined (${ack.trustReasons.join(", ")}): searches and fetches leave it out unless include_quarantined is set, until a reviewer approves it.`,
    );
  }
  return parts.join(" ");
}

export const storeContextTool = defineTool({
  name: "store_context",
  title: "Store context",
  description: [
    "Save a piece of context (a prompt, report, note, plan or image) under a thread so you or other agents can find it later.",
    "Use it when you learn something worth keeping: a decision, a finding, a user's requirement, a plan.",
    "Set source to 'user' for a person's own words and 'agent' for your output. Entries are private to you unless you set visibility or share the thread.",
    "kind says what it is (note by default, or document, prompt, plan, report) and title names it; both are shown in results and filterable.",
    "valid_from/valid_to state when what the text says holds (searches with valid_at use them); leave them out when it always holds.",
    "Returns the entry's id, version and content hash once it is durably stored; storing the same text again in the same thread folds into the existing entry.",
    "Pass an idempotency_key when you may retry.",
  ].join(" "),
  inputSchema: storeContextInput,
  outputSchema: writeAckOutput,
  annotations: additiveTool,
  scope: "context:write",
  write: true,
  async handler(args, { principal, peers, writePath }) {
    const idempotency = await resolveIdempotency(peers, principal, "store_context", args);
    // Schema validation ran before the handler; this stage is the rest: decoding and checking images.
    const entry = await timeStage("validate", async () => toNewEntry(args));
    const ack = await writePath.store(principal, entry, idempotency);
    return {
      success: true,
      context_id: ack.id,
      thread_id: args.thread_id,
      version: ack.version,
      content_hash: ack.contentHash,
      deduplicated: ack.deduplicated,
      created_at: ack.createdAt,
      updated_at: ack.updatedAt,
      trust_state: ack.trustState,
      trust_reasons: ack.trustReasons,
      previously_deleted: ack.previouslyDeleted,
      message: storedMessage(ack),
    };
  },
});

export const storeContextBatchTool = defineTool({
  name: "store_context_batch",
  title: "Store context in a batch",
  description: [
    "Save up to 100 entries in one call, faster than one call each: all texts are embedded in one batch.",
    "By default the batch is atomic (all stored or none); set atomic to false to get a result per entry instead.",
    "Returns one result per entry, in order, with its id or its error.",
  ].join(" "),
  inputSchema: storeContextBatchInput,
  outputSchema: storeBatchOutput,
  annotations: additiveTool,
  scope: "context:write",
  write: true,
  async handler(args, { principal, peers, writePath }) {
    const atomic = args.atomic ?? true;
    const idempotency = await resolveIdempotency(peers, principal, "store_context_batch", args);
    const entries = await timeStage("validate", async () => args.entries.map(toNewEntry));
    const outcomes = await writePath.storeBatch(principal, entries, atomic, idempotency);
    const results = outcomes.map((outcome, index) =>
      outcome.ok
        ? {
            index,
            success: true,
            context_id: outcome.value.id,
            version: outcome.value.version,
            content_hash: outcome.value.contentHash,
            deduplicated: outcome.value.deduplicated,
            trust_state: outcome.value.trustState,
            previously_deleted: outcome.value.previouslyDeleted,
          }
        : { index, success: false, error: outcome.error },
    );
    const stored = results.filter((result) => result.success).length;
    return { atomic, stored_count: stored, failed_count: results.length - stored, results };
  },
});
