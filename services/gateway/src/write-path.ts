import { ContextHubError, contentHash, createChildAbortController, currentRequestContext, fineLatencyBuckets, histogram, isContextHubError } from "@context-hub/common";
import { commonV1, type embedderV1, type storeV1, type summarizerV1 } from "@context-hub/proto";
import type { JsonObject, MessageInitShape } from "@bufbuild/protobuf";
import { timestampDate, timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { Peers } from "./clients/peers.js";
import { createDuplicateChecks } from "./clients/duplicate-checks.js";
import { joinCalls } from "./clients/joined-calls.js";
import type { Idempotency } from "./idempotency.js";
import type { Principal } from "./principal.js";
import { fromProtoTrustState, type TrustStateName } from "./trust/trust-state.js";

export type WriteStage = "validate" | "dedup_check" | "embed" | "summarize" | "commit" | "total";

const stageSeconds = histogram(
  "contexthub_write_stage_seconds",
  "Write latency per stage of the write path, in seconds; outcome ok, error, or cancelled (generation no longer wanted: the write folded into its duplicate or another leg failed).",
  ["stage", "outcome"],
  fineLatencyBuckets,
);

/**
 * Times one stage of a write and records it, whether it succeeds or fails. A
 * stage that fails after `cancel` was aborted counts as cancelled, not as an
 * error: its result was no longer wanted.
 */
export async function timeStage<T>(stage: WriteStage, work: () => Promise<T>, cancel?: AbortSignal): Promise<T> {
  const started = performance.now();
  try {
    const result = await work();
    stageSeconds.observe({ stage, outcome: "ok" }, (performance.now() - started) / 1000);
    return result;
  } catch (error) {
    stageSeconds.observe({ stage, outcome: cancel?.aborted === true ? "cancelled" : "error" }, (performance.now() - started) / 1000);
    throw error;
  }
}

export type Source = "user" | "agent";
export type Visibility = "private" | "shared" | "tenant";

export interface NewEntryInput {
  threadId: string;
  source: Source;
  text: string;
  metadata: JsonObject | undefined;
  tags: string[];
  images: { mimeType: string; data: Uint8Array }[];
  /** Undefined lets the store choose: private, or shared in a thread the caller has shared. */
  visibility: Visibility | undefined;
  /** When the stated fact holds (valid_from ≤ t < valid_to); undefined ends are open. */
  validFrom?: Date | undefined;
  validTo?: Date | undefined;
}

export interface EntryChange {
  /** Full id or unique prefix. */
  id: string;
  expectedVersion: number | undefined;
  text: string | undefined;
  metadata: JsonObject | undefined;
  tags: string[] | undefined;
  images: { mimeType: string; data: Uint8Array }[] | undefined;
  visibility: Visibility | undefined;
  /** Set when the change restores this earlier version (the store checks the content is that version's). */
  restoredFromVersion?: number | undefined;
  /** Replaces the valid-time interval (an undefined end becomes open). */
  validity?: { validFrom: Date | undefined; validTo: Date | undefined } | undefined;
}

/** The read-back acknowledgement a caller gets once the write is durable. */
export interface WriteAck {
  id: string;
  threadId: string | undefined;
  version: number;
  contentHash: string;
  deduplicated: boolean;
  createdAt: string;
  updatedAt: string;
  /** A new entry whose text was deleted from its thread before. */
  previouslyDeleted: boolean;
  trustState: TrustStateName;
  /** What the write-time screen found, as `<field>:<rule>`. */
  trustReasons: string[];
}

export interface ItemFailure {
  code: string;
  message: string;
}

export type ItemOutcome<T> = { ok: true; value: T } | { ok: false; error: ItemFailure };

export const toProtoSource = (source: Source): commonV1.Source => (source === "user" ? commonV1.Source.USER : commonV1.Source.AGENT);

export const toProtoVisibility = (visibility: Visibility | undefined): commonV1.Visibility => {
  switch (visibility) {
    case "tenant":
      return commonV1.Visibility.TENANT;
    case "shared":
      return commonV1.Visibility.SHARED;
    case "private":
      return commonV1.Visibility.PRIVATE;
    case undefined:
      return commonV1.Visibility.UNSPECIFIED;
  }
};

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
  };
}

function toProtoValidity(validity: { validFrom: Date | undefined; validTo: Date | undefined }): MessageInitShape<typeof storeV1.ValiditySchema> {
  return {
    ...(validity.validFrom === undefined ? {} : { validFrom: timestampFromDate(validity.validFrom) }),
    ...(validity.validTo === undefined ? {} : { validTo: timestampFromDate(validity.validTo) }),
  };
}

function toItemOutcome<T>(error: storeV1.ItemError | undefined, value: () => T): ItemOutcome<T> {
  return error !== undefined && error.code !== "" ? { ok: false, error: { code: error.code, message: error.message } } : { ok: true, value: value() };
}

export interface WritePathOptions {
  peers: Peers;
  /** Node summaries are best effort: a write waits for them at most this long. */
  sectionSummaryTimeoutMs: number;
  /** Whether a new entry's generation may start before its dedup pre-check answers (see clients/early-generation.ts). */
  earlyGeneration: () => boolean;
}

interface GenerationInput {
  text: string;
  source: Source;
}

/** One text's embedding, with the model that made it. */
interface EmbeddedText {
  model: string;
  dimension: number;
  document: embedderV1.EmbeddedDocument;
}

/**
 * How far the worker calls of writes arriving together are joined: the
 * summarizer's limit of texts per call, and small texts only, so that a long
 * text's generation never holds up another write (a text this long or longer
 * travels alone).
 */
const joinLimits = { maxItems: 100, maxWeight: 64 * 1024 };

/**
 * Every write, the way the architecture requires (I-4): generation first —
 * embeddings of every chunk of every text in one batch, summaries and node
 * summaries in parallel — then one store call in one transaction. If a
 * mandatory leg (embedding; the summary when a summarizer is configured)
 * fails, nothing is stored and the error names the leg.
 */
export function createWritePath(options: WritePathOptions) {
  const { peers } = options;

  // Writes that arrive together share their worker calls (see joinCalls); a batch store's texts travel together anyway.
  const embedTexts = joinCalls<string, EmbeddedText>(
    async (texts, signal) => {
      const reply = await peers.embedder.embedDocuments({ texts }, signal === undefined ? {} : { signal });
      if (reply.documents.length !== texts.length) throw new Error(`the embedder returned ${reply.documents.length} documents for ${texts.length} texts`);
      return reply.documents.map((document) => ({ model: reply.model, dimension: reply.dimension, document }));
    },
    joinLimits,
    (text) => text.length,
  );
  const { summarizer } = peers;
  const summarizeTexts =
    summarizer === undefined
      ? undefined
      : joinCalls<GenerationInput, summarizerV1.TextSummary>(
          async (inputs, signal) => {
            const reply = await summarizer.summarize(
              { inputs: inputs.map((input) => ({ text: input.text, source: toProtoSource(input.source) })), sectionBudgetMs: options.sectionSummaryTimeoutMs },
              signal === undefined ? {} : { signal },
            );
            if (reply.summaries.length !== inputs.length) throw new Error(`the summarizer returned ${reply.summaries.length} summaries for ${inputs.length} texts`);
            return reply.summaries;
          },
          joinLimits,
          (input) => input.text.length,
        );

  // The dedup pre-checks of writes arriving together travel in one store call too, each scoped by its own caller.
  const checkDuplicate = createDuplicateChecks(peers.store);

  /** The caller's likely retransmit of `entry` (see the store's FindDuplicate): its id, or "" when there is none. */
  const findDuplicate = (principal: Principal, entry: NewEntryInput): Promise<string> =>
    checkDuplicate({ principal, threadId: entry.threadId, source: toProtoSource(entry.source), contentHash: contentHash(entry.text), requestId: currentRequestContext()?.requestId ?? "" });

  /**
   * Generation for `inputs`. Aborting `signal` cancels the worker calls still
   * running (their results are not wanted); so does a failed leg, which
   * leaves the other leg's result unwanted too.
   */
  async function generate(inputs: GenerationInput[], signal?: AbortSignal): Promise<storeV1.Generated[]> {
    if (inputs.length === 0) return [];
    const legs = createChildAbortController(signal);
    const leg = <T>(stage: WriteStage, work: (signal: AbortSignal) => Promise<T>, onFailure: (error: unknown) => ContextHubError): Promise<T> =>
      timeStage(stage, () => work(legs.signal), legs.signal).catch((error: unknown) => {
        legs.abort();
        throw onFailure(error);
      });
    const embedding = leg(
      "embed",
      (legSignal) =>
        embedTexts(
          inputs.map((input) => input.text),
          legSignal,
        ),
      (error) => legFailure("embedding", "EMBEDDER_UNAVAILABLE", error),
    );
    // The summary is mandatory; node summaries never fail a write: the summarizer answers without them once
    // sectionSummaryTimeoutMs has passed.
    const summaries =
      summarizeTexts === undefined
        ? Promise.resolve(inputs.map(() => ({ summary: "", sections: [] as commonV1.NodeSummary[] })))
        : leg(
            "summarize",
            (legSignal) => summarizeTexts(inputs, legSignal),
            (error) => legFailure("summary", "SUMMARIZER_UNAVAILABLE", error),
          );

    let embedded: EmbeddedText[];
    let summarized: Pick<summarizerV1.TextSummary, "summary" | "sections">[];
    try {
      [embedded, summarized] = await Promise.all([embedding, summaries]);
    } finally {
      legs.release();
    }
    return inputs.map((input, index) => ({
      $typeName: "contexthub.store.v1.Generated",
      embeddingModel: embedded[index]!.model,
      embeddingDimension: embedded[index]!.dimension,
      chunks: embedded[index]!.document.chunks.map((chunk) => ({
        $typeName: "contexthub.store.v1.ChunkVector",
        ordinal: chunk.ordinal,
        span: { $typeName: "contexthub.common.v1.TextSpan", start: chunk.start, end: chunk.end },
        vector: chunk.vector?.float32Le ?? new Uint8Array(),
      })),
      summary: summarized[index]!.summary,
      nodeSummaries: summarized[index]!.sections,
      textHash: contentHash(input.text),
    }));
  }

  async function commit(principal: Principal, entry: NewEntryInput, generated: storeV1.Generated | undefined, idempotency: Idempotency | undefined): Promise<WriteAck> {
    const reply = await timeStage("commit", () =>
      peers.store.commit({ principal, entry: toProtoEntry(entry), ...(generated === undefined ? {} : { generated }), ...(idempotency === undefined ? {} : { idempotency }) }),
    );
    return toWriteAck(reply.ack, entry.threadId);
  }

  /**
   * The caller's likely retransmits among `entries`: for each, the id of the
   * entry it would fold into, or "" (one joined store call for them all).
   */
  const findDuplicates = (principal: Principal, entries: readonly NewEntryInput[]): Promise<string[]> =>
    timeStage("dedup_check", () => Promise.all(entries.map((entry) => findDuplicate(principal, entry))));

  /**
   * Commits `entry` without generation: the store answers an idempotent
   * replay with its first result, or folds the entry into the duplicate its
   * pre-check found. Undefined when there is neither any more (the record
   * expired, the duplicate was deleted or changed): the store stored nothing,
   * and the entry must be generated for and inserted after all.
   */
  async function commitWithoutGeneration(principal: Principal, entry: NewEntryInput, idempotency: Idempotency | undefined): Promise<WriteAck | undefined> {
    try {
      return await commit(principal, entry, undefined, idempotency);
    } catch (error) {
      if (isDuplicateVanished(error)) return undefined;
      throw error;
    }
  }

  /** Folds `entry` into the entry it likely retransmits, if the pre-check finds one and it is still there; else undefined. */
  async function foldIntoDuplicate(principal: Principal, entry: NewEntryInput, idempotency: Idempotency | undefined): Promise<WriteAck | undefined> {
    const [duplicateOf] = await findDuplicates(principal, [entry]);
    return duplicateOf === "" ? undefined : commitWithoutGeneration(principal, entry, idempotency);
  }

  /**
   * Generation for the entries `wanted` picks, in one batch: each entry's
   * generated data, or undefined for an entry not picked.
   */
  async function generateFor(entries: readonly NewEntryInput[], wanted: (index: number) => boolean): Promise<(storeV1.Generated | undefined)[]> {
    const picked = entries.flatMap((_, index) => (wanted(index) ? [index] : []));
    const generated = await generate(picked.map((index) => entries[index]!));
    const byEntry: (storeV1.Generated | undefined)[] = entries.map(() => undefined);
    picked.forEach((index, position) => (byEntry[index] = generated[position]));
    return byEntry;
  }

  /**
   * A new entry's generation started beside its pre-check, so it does not
   * wait for the pre-check's round trip; a likely retransmit folds into its
   * duplicate and the running generation is cancelled.
   */
  async function storeGeneratingEarly(principal: Principal, entry: NewEntryInput, idempotency: Idempotency | undefined): Promise<WriteAck> {
    const cancel = new AbortController();
    let generating = true;
    const generation = generate([entry], cancel.signal);
    // Awaited only if the entry is inserted; until then (or if it never is) a failed leg must not surface as an unhandled rejection.
    generation.then(
      () => (generating = false),
      () => (generating = false),
    );
    try {
      const folded = await foldIntoDuplicate(principal, entry, idempotency);
      if (folded !== undefined) return folded;
      // I-4: a failed mandatory leg throws here, naming the leg, before anything is committed.
      const [generated] = await generation;
      return await commit(principal, entry, generated, idempotency);
    } finally {
      // A fold or a failure leaves the generation unwanted; after an insert the calls have ended and there is nothing to cancel.
      if (generating) cancel.abort();
    }
  }

  /** The pre-check first: a likely retransmit folds into its duplicate and generates nothing; a new entry generates, then commits. */
  async function storeAfterCheck(principal: Principal, entry: NewEntryInput, idempotency: Idempotency | undefined): Promise<WriteAck> {
    const folded = await foldIntoDuplicate(principal, entry, idempotency);
    if (folded !== undefined) return folded;
    // I-4: a failed mandatory leg throws here, naming the leg, before anything is committed.
    const [generated] = await generate([entry]);
    return commit(principal, entry, generated, idempotency);
  }

  /** One CommitBatch call; `generated[i]` undefined commits entry i without generation (a fold, or a replay). */
  async function commitBatch(
    principal: Principal,
    entries: readonly NewEntryInput[],
    generated: readonly (storeV1.Generated | undefined)[],
    atomic: boolean,
    idempotency: Idempotency | undefined,
  ): Promise<ItemOutcome<WriteAck>[]> {
    const reply = await timeStage("commit", () =>
      peers.store.commitBatch({
        principal,
        atomic,
        entries: entries.map((entry, index) => ({ entry: toProtoEntry(entry), ...(generated[index] === undefined ? {} : { generated: generated[index] }) })),
        ...(idempotency === undefined ? {} : { idempotency }),
      }),
    );
    return reply.results.map((result, index) => toItemOutcome(toBatchItemError(result.error), () => toWriteAck(result.ack, entries[index]?.threadId)));
  }

  return {
    /**
     * Stores one entry: an idempotent replay commits nothing new and returns
     * the first result; a likely retransmit folds into its duplicate; a new
     * entry is generated for, then committed. Whether generation waits for
     * the pre-check is `earlyGeneration`'s call.
     */
    async store(principal: Principal, entry: NewEntryInput, idempotency?: Idempotency & { replay: boolean }): Promise<WriteAck> {
      if (idempotency?.replay === true) {
        // The store answers with the first result; if the record expired since it was checked, this is a fold or a new entry after all.
        const replayed = await commitWithoutGeneration(principal, entry, idempotency);
        if (replayed !== undefined) return replayed;
      }
      return options.earlyGeneration() ? storeGeneratingEarly(principal, entry, idempotency) : storeAfterCheck(principal, entry, idempotency);
    },

    /**
     * Stores many entries, embedding all their chunks in one batch. Unless
     * generation may start early, the batch's pre-checks come first and
     * entries that are likely retransmits generate nothing; the store folds
     * them. If a fold target vanished meanwhile, an atomic batch (which then
     * stored nothing) is generated whole and committed again, and a
     * non-atomic one stores the vanished entries in a second call.
     */
    async storeBatch(principal: Principal, entries: NewEntryInput[], atomic: boolean, idempotency?: Idempotency & { replay: boolean }): Promise<ItemOutcome<WriteAck>[]> {
      if (idempotency?.replay === true) {
        try {
          return await commitBatch(
            principal,
            entries,
            entries.map(() => undefined),
            atomic,
            idempotency,
          );
        } catch (error) {
          if (!isDuplicateVanished(error)) throw error;
        }
      }
      // A non-atomic batch under an idempotency key records every item's outcome with the key, so an item whose fold
      // target vanished could not be stored again under it: such a batch generates for every entry, as early generation
      // does, and the store folds the retransmits.
      const skipRetransmits = !options.earlyGeneration() && (atomic || idempotency === undefined);
      const duplicates = skipRetransmits ? await findDuplicates(principal, entries) : entries.map(() => "");
      const isRetransmit = (index: number) => duplicates[index] !== "";
      const generated = await generateFor(entries, (index) => !isRetransmit(index));
      if (atomic) {
        try {
          return await commitBatch(principal, entries, generated, true, idempotency);
        } catch (error) {
          if (!isDuplicateVanished(error)) throw error;
          const rest = await generateFor(entries, isRetransmit);
          return commitBatch(
            principal,
            entries,
            generated.map((done, index) => done ?? rest[index]),
            true,
            idempotency,
          );
        }
      }
      const results = await commitBatch(principal, entries, generated, false, idempotency);
      const vanished = results.flatMap((result, index) => (!result.ok && result.error.code === "DUPLICATE_VANISHED" && isRetransmit(index) ? [index] : []));
      if (vanished.length === 0) return results;
      const again = vanished.map((index) => entries[index]!);
      const stored = await commitBatch(principal, again, await generate(again), false, undefined);
      vanished.forEach((index, position) => (results[index] = stored[position]!));
      return results;
    },

    /**
     * Applies changes under compare-and-set. Text changes are regenerated
     * before the commit; metadata-only changes generate nothing. Without a
     * caller-given expected version, the version read here guards the write.
     */
    async update(principal: Principal, changes: EntryChange[], atomic: boolean, idempotency?: Idempotency & { replay: boolean }): Promise<ItemOutcome<WriteAck>[]> {
      const replay = idempotency?.replay === true;
      const textual = replay ? [] : changes.filter((change) => change.text !== undefined);
      // Read the current rows (through the read predicate) to skip regeneration for unchanged text.
      const current = new Map<string, storeV1.Entry>();
      if (textual.length > 0) {
        // Quarantined entries included: an update of one must still see its source and current text.
        const reply = await peers.store.getEntries({ principal, ids: textual.map((change) => change.id), includeQuarantined: true });
        for (const entry of reply.entries) current.set(entry.id, entry);
      }
      const resolve = (id: string) => [...current.values()].find((entry) => entry.id === id || entry.id.replaceAll("-", "").startsWith(id.replaceAll("-", "").toLowerCase()));
      const needsText = textual.filter((change) => resolve(change.id)?.contentHash !== contentHash(change.text!));
      const generated = await generate(needsText.map((change) => ({ text: change.text!, source: resolve(change.id)?.source === commonV1.Source.USER ? "user" : "agent" })));
      const generatedFor = new Map(needsText.map((change, index) => [change, generated[index]]));

      const reply = await timeStage("commit", () =>
        peers.store.updateEntries({
          principal,
          atomic,
          updates: changes.map((change) => {
            const gen = generatedFor.get(change);
            const unchangedText = change.text !== undefined && gen === undefined && !replay && resolve(change.id) !== undefined;
            return {
              id: change.id,
              ...(change.expectedVersion === undefined ? {} : { expectedVersion: change.expectedVersion }),
              // Identical text is not sent again, so nothing is regenerated or rewritten for it.
              ...(change.text === undefined || unchangedText ? {} : { text: change.text }),
              ...(change.metadata === undefined ? {} : { metadata: change.metadata }),
              ...(change.tags === undefined ? {} : { tags: { tags: change.tags } }),
              ...(change.images === undefined ? {} : { images: { images: change.images } }),
              visibility: toProtoVisibility(change.visibility),
              ...(gen === undefined ? {} : { generated: gen }),
              ...(change.restoredFromVersion === undefined ? {} : { restoredFromVersion: change.restoredFromVersion }),
              ...(change.validity === undefined ? {} : { validity: toProtoValidity(change.validity) }),
            };
          }),
          ...(idempotency === undefined ? {} : { idempotency }),
        }),
      );
      return reply.results.map((result) => toItemOutcome(result.error, () => toWriteAck(result.ack, undefined)));
    },
  };
}

export type WritePath = ReturnType<typeof createWritePath>;

const isDuplicateVanished = (error: unknown) => isContextHubError(error) && error.code === "DUPLICATE_VANISHED";

/** A batch item's error for the caller: a vanished fold target is told as what the caller can do about it. */
function toBatchItemError(error: storeV1.ItemError | undefined): storeV1.ItemError | undefined {
  if (error?.code !== "DUPLICATE_VANISHED") return error;
  return {
    ...error,
    message: "the entry this item was identical to was deleted or changed while the batch was stored, so nothing was stored for this item; store it again (with a new idempotency_key if you used one)",
  };
}

function legFailure(leg: string, code: "EMBEDDER_UNAVAILABLE" | "SUMMARIZER_UNAVAILABLE", cause: unknown): ContextHubError {
  // A text over its processing budget is no outage: retrying the same text fails the same way, and the error already names its stage.
  if (isContextHubError(cause) && cause.code === "TEXT_BUDGET_EXCEEDED") {
    return new ContextHubError(cause.code, cause.message, { ...(cause.remedy === undefined ? {} : { remedy: cause.remedy }), details: { ...cause.details, leg } });
  }
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new ContextHubError(code, `${leg} failed, so nothing was stored: ${reason}`, {
    remedy: "retry the same call later; if it keeps failing, check the generation worker and its provider",
    details: { leg },
    cause,
  });
}
