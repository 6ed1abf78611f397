/**
 * The store side of the write path: dedup pre-checks, commits and updates
 * over EntriesService, with the write path's domain types mapped to and from
 * proto here.
 */
import type { MessageInitShape } from "@bufbuild/protobuf";
import { timestampDate, timestampFromDate } from "@bufbuild/protobuf/wkt";
import { ContextHubError, contentHash, currentRequestContext } from "@context-hub/common";
import type { storeV1 } from "@context-hub/proto";
import type { Idempotency } from "../idempotency.js";
import type { Principal } from "../principal.js";
import type { EntryChange, ItemOutcome, NewEntryInput, PromptArgumentInput, Source, WriteAck } from "../write-types.js";
import { createDuplicateChecks } from "./duplicate-checks.js";
import type { Generated } from "./generation-client.js";
import type { EntriesServiceClient } from "./peers.js";
import { fromProtoSource, fromProtoTrustState, toProtoSource, toProtoVisibility } from "./proto-enums.js";

/** An entry as an update needs to see it before generating: whether its text changed, and whose words it holds. */
export interface CurrentText {
  id: string;
  contentHash: string;
  source: Source;
}

/** One change as it is sent: the change, and generation for its new text when it needs any. */
export interface PlannedChange {
  change: EntryChange;
  /** False when the new text is the stored text: it is not sent, so nothing is regenerated or rewritten. */
  sendText: boolean;
  generated: Generated | undefined;
}

export function toWriteAck(ack: storeV1.EntryAck | undefined, threadId: string | undefined): WriteAck {
  if (ack === undefined) throw new ContextHubError("INTERNAL", "the store acknowledged the write without a read-back");
  return {
    id: ack.id,
    threadId,
    version: ack.version,
    contentHash: ack.contentHash,
    deduplicated: ack.deduplicated,
    createdAt: ack.createdAt ? timestampDate(ack.createdAt).toISOString() : "",
    updatedAt: ack.updatedAt ? timestampDate(ack.updatedAt).toISOString() : "",
    previouslyDeleted: ack.previouslyDeleted,
    trustState: fromProtoTrustState(ack.trustState),
    trustReasons: ack.trustReasons,
  };
}

function toProtoPromptArguments(
  list: readonly PromptArgumentInput[],
): MessageInitShape<typeof storeV1.PromptArgumentSchema>[] {
  return list.map((argument) => ({
    name: argument.name,
    description: argument.description ?? "",
    required: argument.required ?? false,
  }));
}

function toProtoEntry(entry: NewEntryInput): MessageInitShape<typeof storeV1.NewEntrySchema> {
  return {
    threadId: entry.threadId,
    source: toProtoSource(entry.source),
    text: entry.text,
    ...(entry.metadata === undefined ? {} : { metadata: entry.metadata }),
    tags: entry.tags,
    images: entry.images,
    visibility: toProtoVisibility(entry.visibility),
    ...(entry.validFrom === undefined ? {} : { validFrom: timestampFromDate(entry.validFrom) }),
    ...(entry.validTo === undefined ? {} : { validTo: timestampFromDate(entry.validTo) }),
    kind: entry.kind ?? "",
    title: entry.title ?? "",
    promptArguments: toProtoPromptArguments(entry.promptArguments ?? []),
    artifacts: [...(entry.artifacts ?? [])],
    promptName: entry.promptName ?? "",
  };
}

function toProtoValidity(validity: {
  validFrom: Date | undefined;
  validTo: Date | undefined;
}): MessageInitShape<typeof storeV1.ValiditySchema> {
  return {
    ...(validity.validFrom === undefined ? {} : { validFrom: timestampFromDate(validity.validFrom) }),
    ...(validity.validTo === undefined ? {} : { validTo: timestampFromDate(validity.validTo) }),
  };
}

function toProtoUpdate({
  change,
  sendText,
  generated,
}: PlannedChange): MessageInitShape<typeof storeV1.EntryUpdateSchema> {
  return {
    id: change.id,
    ...(change.expectedVersion === undefined ? {} : { expectedVersion: change.expectedVersion }),
    ...(change.text === undefined || !sendText ? {} : { text: change.text }),
    ...(change.metadata === undefined ? {} : { metadata: change.metadata }),
    ...(change.tags === undefined ? {} : { tags: { tags: change.tags } }),
    ...(change.images === undefined ? {} : { images: { images: change.images } }),
    visibility: toProtoVisibility(change.visibility),
    ...(generated === undefined ? {} : { generated }),
    ...(change.restoredFromVersion === undefined ? {} : { restoredFromVersion: change.restoredFromVersion }),
    ...(change.validity === undefined ? {} : { validity: toProtoValidity(change.validity) }),
    ...(change.kind === undefined ? {} : { kind: change.kind }),
    ...(change.title === undefined ? {} : { title: change.title }),
    ...(change.promptArguments === undefined
      ? {}
      : { promptArguments: { arguments: toProtoPromptArguments(change.promptArguments) } }),
    ...(change.artifacts === undefined ? {} : { artifacts: { sha256: [...change.artifacts] } }),
    ...(change.promptName === undefined ? {} : { promptName: change.promptName }),
  };
}

function toItemOutcome<T>(error: storeV1.ItemError | undefined, value: () => T): ItemOutcome<T> {
  return error !== undefined && error.code !== ""
    ? { ok: false, error: { code: error.code, message: error.message } }
    : { ok: true, value: value() };
}

/** A batch item's error for the caller: a vanished fold target is told as what the caller can do about it. */
function toBatchItemError(error: storeV1.ItemError | undefined): storeV1.ItemError | undefined {
  if (error?.code !== "DUPLICATE_VANISHED") return error;
  return {
    ...error,
    message:
      "the entry this item was identical to was deleted or changed while the batch was stored, so nothing was stored for this item; store it again (with a new idempotency_key if you used one)",
  };
}

const withIdempotency = (idempotency: Idempotency | undefined) => (idempotency === undefined ? {} : { idempotency });

/** The write path's store client over an EntriesService connection. */
export function createWriteStoreClient(store: EntriesServiceClient) {
  // The dedup pre-checks of writes arriving together travel in one store call, each scoped by its own caller.
  const checkDuplicate = createDuplicateChecks(store);
  return {
    /** The caller's likely retransmit of `entry` (see the store's FindDuplicate): its id, or "" when there is none. */
    findDuplicate(principal: Principal, entry: NewEntryInput): Promise<string> {
      return checkDuplicate({
        principal,
        threadId: entry.threadId,
        source: toProtoSource(entry.source),
        contentHash: contentHash(entry.text),
        requestId: currentRequestContext()?.requestId ?? "",
      });
    },

    /** One Commit; without `generated` the store folds the entry into its duplicate or answers a replay, or refuses with DUPLICATE_VANISHED. */
    async commit(
      principal: Principal,
      entry: NewEntryInput,
      generated: Generated | undefined,
      idempotency: Idempotency | undefined,
    ): Promise<WriteAck> {
      const reply = await store.commit({
        principal,
        entry: toProtoEntry(entry),
        ...(generated === undefined ? {} : { generated }),
        ...withIdempotency(idempotency),
      });
      return toWriteAck(reply.ack, entry.threadId);
    },

    /** One CommitBatch; `generated[i]` undefined commits entry i without generation (a fold, or a replay). */
    async commitBatch(
      principal: Principal,
      entries: readonly NewEntryInput[],
      generated: readonly (Generated | undefined)[],
      atomic: boolean,
      idempotency: Idempotency | undefined,
    ): Promise<ItemOutcome<WriteAck>[]> {
      const reply = await store.commitBatch({
        principal,
        atomic,
        entries: entries.map((entry, index) => ({
          entry: toProtoEntry(entry),
          ...(generated[index] === undefined ? {} : { generated: generated[index] }),
        })),
        ...withIdempotency(idempotency),
      });
      return reply.results.map((result, index) =>
        toItemOutcome(toBatchItemError(result.error), () => toWriteAck(result.ack, entries[index]?.threadId)),
      );
    },

    /** The entries `ids` name, as the caller may read them (quarantined ones included: an update of one must still see it). */
    async currentTexts(principal: Principal, ids: string[]): Promise<CurrentText[]> {
      const reply = await store.getEntries({ principal, ids, includeQuarantined: true });
      return reply.entries.map((entry) => ({
        id: entry.id,
        contentHash: entry.contentHash,
        source: fromProtoSource(entry.source),
      }));
    },

    /** One UpdateEntries call, compare-and-set per change. */
    async update(
      principal: Principal,
      changes: PlannedChange[],
      atomic: boolean,
      idempotency: Idempotency | undefined,
    ): Promise<ItemOutcome<WriteAck>[]> {
      const reply = await store.updateEntries({
        principal,
        atomic,
        updates: changes.map(toProtoUpdate),
        ...withIdempotency(idempotency),
      });
      return reply.results.map((result) => toItemOutcome(result.error, () => toWriteAck(result.ack, undefined)));
    },
  };
}

export type WriteStoreClient = ReturnType<typeof createWriteStoreClient>;
