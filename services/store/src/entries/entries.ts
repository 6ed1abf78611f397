/**
 * The entry domain: what an entry is, what a write must satisfy, and how the
 * entry operations run (commit, batches, updates, deletes, reads, threads and
 * statistics). No transport or SQL here; persistence sits behind
 * `EntryRepository`.
 */
import { ContextHubError, invalidArgument, isContextHubError } from "@context-hub/common";
import { deleteEntry, resolveAll, updateEntry, type DeleteTarget, type ResolvedId } from "./entry-changes.js";
import { getEntries, maxIdsPerGet } from "./entry-fetch.js";
import { toIdQuery } from "../model/id-query.js";
import { createIdempotentRunner, type IdempotencyExpiry, type IdempotencyState, type Outcome } from "../idempotency/idempotency.js";
import type { IdempotencyInput } from "../model/idempotency-request.js";
import { isItemFailure, runItems, toItemError, validateItems, type ItemError, type ItemResult } from "../model/items.js";
import { requirePrincipal, type Principal } from "../model/principal.js";
import { validateEntryChange, validateGenerated, validateItemCount, validateNewEntry, validatePage } from "./entry-validation.js";
import { limits, validateThreadId } from "../model/field-validation.js";
import { validateSearchFilter, type SearchFilterInput } from "../model/search-filter.js";
import type { EntryRepository, EntryWriteScope } from "./entry-ports.js";
import type {
  CommitBatchRequest,
  CommitItemResult,
  CommitRequest,
  DeleteEntriesRequest,
  DeleteEntriesResult,
  DuplicateKey,
  EntryAck,
  EntryChange,
  EntryStatistics,
  EntryWrite,
  GeneratedInput,
  GeneratedWrite,
  GetEntriesResult,
  ListEntriesResult,
  NewEntryInput,
  ScreenedChange,
  TextWrite,
  Source,
  ThreadPage,
  UpdateEntriesRequest,
  UpdateItemResult,
} from "../model/entry-model.js";
import type { AuditAction, DenialRecorder } from "../audit/audit.js";
import { allFindings, type FieldScreens, type WriteScreen } from "../screen/write-screen.js";
import { initialTrust, trustAfterChange } from "../model/trust.js";

export interface EntryService {
  /**
   * The id of the caller's entry a write of `key` would fold into, or
   * undefined. It is the caller's latest entry in the thread with that source,
   * if its content hash is `key.contentHash` and no entry of the other source
   * that the caller may see was written after it.
   */
  findDuplicate(principal: Principal | undefined, key: { threadId: string; source: Source | undefined; contentHash: string }): Promise<string | undefined>;
  /**
   * Validates, then in one transaction either folds the write into the
   * caller's duplicate (re-asserting its hash) or inserts the entry with
   * everything generated for it. Without `generated` a write that finds no
   * duplicate fails with DUPLICATE_VANISHED and stores nothing.
   */
  commit(principal: Principal | undefined, request: CommitRequest): Promise<Outcome<EntryAck>>;
  /** Up to 100 commits: all in one transaction (atomic), or each in its own with a result per item. */
  commitBatch(principal: Principal | undefined, request: CommitBatchRequest): Promise<Outcome<CommitItemResult[]>>;
  /** Changes entries the caller may change, each under compare-and-set on its version. */
  updateEntries(principal: Principal | undefined, request: UpdateEntriesRequest): Promise<Outcome<UpdateItemResult[]>>;
  /** Deletes entries the caller may change, by id or every such entry of a thread. */
  deleteEntries(principal: Principal | undefined, request: DeleteEntriesRequest): Promise<Outcome<DeleteEntriesResult>>;
  /**
   * Entries by full id or unique prefix, in request order, as far as the
   * caller may see them. Quarantined and rejected ones are withheld (listed
   * by id and state) unless `includeQuarantined` is set.
   */
  getEntries(principal: Principal | undefined, request: { ids: readonly string[]; includeImages: boolean; includeQuarantined?: boolean | undefined }): Promise<GetEntriesResult>;
  /** Entries matching a filter, newest first, as far as the caller may see them. */
  listEntries(principal: Principal | undefined, request: { filter: SearchFilterInput | undefined; limit: number; offset: number }): Promise<ListEntriesResult>;
  /** Threads holding entries the caller may see, most recently active first, counting only those entries. */
  listThreads(principal: Principal | undefined, request: { limit: number; offset: number }): Promise<ThreadPage>;
  /** Counts over the entries the caller may see, in one thread or all. */
  getStatistics(principal: Principal | undefined, request: { threadId: string }): Promise<EntryStatistics>;
  /** Where an idempotency key stands for the caller (new, replay or conflict), without writing anything. */
  checkIdempotency(principal: Principal | undefined, key: IdempotencyInput | undefined): Promise<IdempotencyState>;
}

/** Longest reason a delete may give. */
export const maxDeleteReasonLength = 1000;

const contentHashPattern = /^[0-9a-f]{64}$/;

function validateDuplicateKey(key: { threadId: string; source: Source | undefined; contentHash: string }): DuplicateKey {
  const threadId = validateThreadId(key.threadId, "thread_id");
  if (key.source === undefined) throw invalidArgument("source must be user or agent");
  if (!contentHashPattern.test(key.contentHash)) throw invalidArgument("content_hash must be a lowercase hex SHA-256 (64 characters)");
  return { threadId, source: key.source, contentHash: key.contentHash };
}

interface ValidCommit {
  write: EntryWrite;
  generated: GeneratedWrite | undefined;
  /** The write-time screen of the entry's text, metadata and tags, done before its transaction. */
  screens: FieldScreens;
}

function validateCommit(entry: NewEntryInput | undefined, generated: GeneratedInput | undefined): Omit<ValidCommit, "screens"> {
  if (entry === undefined) throw invalidArgument("entry is required");
  const write = validateNewEntry(entry);
  return { write, generated: generated === undefined ? undefined : validateGenerated(generated, write.text) };
}

/**
 * Texts at least this long have their full-text vector computed before the
 * write's transaction (see `EntryRepository.searchVectorOf`); a shorter one
 * is parsed in the write's statement, which costs less than a round trip.
 */
const vectorBeforeTransactionChars = 16_384;

/** What a write needs before its transaction: the screen, and where a long text's full-text vector is computed. */
interface BeforeTransaction {
  screen: WriteScreen;
  searchVectorOf(text: string): Promise<string>;
}

/** `write` with its full-text vector when the text is long enough to be worth computing before the transaction. */
async function withSearchVector<W extends TextWrite>(before: BeforeTransaction, write: W): Promise<W> {
  if (write.text.length < vectorBeforeTransactionChars) return write;
  return { ...write, searchVector: await before.searchVectorOf(write.text) };
}

/** A valid commit with its screen, which may take a worker's time: done before the transaction, so it never holds one open. */
async function screenCommit(before: BeforeTransaction, commit: Omit<ValidCommit, "screens">): Promise<ValidCommit> {
  const { text, metadata, tags } = commit.write;
  const [screens, write] = await Promise.all([before.screen.screen({ text, metadata, tags }), withSearchVector(before, commit.write)]);
  return { ...commit, write, screens };
}

/** A valid change with its screen of the fields it brings (see `screenCommit`). */
async function screenChange(before: BeforeTransaction, change: EntryChange): Promise<ScreenedChange> {
  const [screens, text] = await Promise.all([
    before.screen.screen({
      ...(change.text === undefined ? {} : { text: change.text.text }),
      ...(change.metadata === undefined ? {} : { metadata: change.metadata }),
      ...(change.tags === undefined ? {} : { tags: change.tags }),
    }),
    change.text === undefined ? undefined : withSearchVector(before, change.text),
  ]);
  return { ...change, text, screens };
}

/**
 * Runs the asynchronous part of validation (the screen) on every valid item,
 * as `validateItems` runs the rest: atomic, the first failure fails the call
 * naming its item; non-atomic, it becomes that item's failure.
 */
async function completeItems<V, W>(items: readonly ItemResult<V>[], atomic: boolean, itemName: (index: number) => string, complete: (value: V) => Promise<W>): Promise<ItemResult<W>[]> {
  const completed = await Promise.allSettled(items.map(async (item): Promise<ItemResult<W>> => (item.ok ? { ok: true, value: await complete(item.value) } : item)));
  return completed.map((outcome, index) => {
    if (outcome.status === "fulfilled") return outcome.value;
    const error = namingError(itemName(index), outcome.reason);
    if (atomic || !isItemFailure(error)) throw error;
    return { ok: false, error: toItemError(error) };
  });
}

/** Runs `validate`, naming `field` at the start of any error about the item it raises. */
function naming<T>(field: string, validate: () => T): T {
  try {
    return validate();
  } catch (error) {
    throw namingError(field, error);
  }
}

/** `error` with `field` named at its start, when it is about the item (bad input, or input over its time budget). */
function namingError(field: string, error: unknown): unknown {
  if (isContextHubError(error) && (error.code === "INVALID_ARGUMENT" || error.code === "TEXT_BUDGET_EXCEEDED")) {
    return new ContextHubError(error.code, `${field}: ${error.message}`, { ...(error.remedy === undefined ? {} : { remedy: error.remedy }), details: error.details });
  }
  return error;
}

/**
 * The commit of one entry inside `scope`'s transaction: take the thread's
 * lock (so two identical writes racing each other cannot both miss each
 * other), fold into the caller's duplicate if there is one, else insert.
 */
async function commitIn(scope: EntryWriteScope, caller: Principal, { write, generated, screens }: ValidCommit): Promise<EntryAck> {
  await scope.lockThreads(caller, [write.threadId]);
  const findings = allFindings(screens);
  const key = { threadId: write.threadId, source: write.source, contentHash: write.contentHash };
  let duplicateId: string | undefined;
  if (generated === undefined) {
    duplicateId = await scope.findDuplicate(caller, key);
  } else {
    // The usual case, a new entry, takes one statement: the duplicate lookup and the insert together.
    const outcome = await scope.insertUnlessDuplicate(caller, write, generated, initialTrust(write.source, caller, findings));
    if ("inserted" in outcome) return recordCreated(scope, caller, write, outcome.inserted);
    duplicateId = outcome.duplicateOf;
  }
  if (duplicateId !== undefined) {
    // The text is the stored one; only the metadata and tags it brings are screened anew.
    const rescreened = { metadata: findings.filter((finding) => finding.field === "metadata"), tags: findings.filter((finding) => finding.field === "tags") };
    // The update re-asserts the hash it saw; if the text changed meanwhile it matches nothing and this becomes an insert.
    const folded = await scope.fold(caller, duplicateId, write, (current) => trustAfterChange(current, write.source, caller, rescreened, false));
    if (folded !== undefined) {
      scope.audit.record(caller.tenant, {
        actor: caller.subject,
        action: "entry.fold",
        outcome: "ok",
        targetIds: [folded.ack.id],
        beforeHashes: [folded.ack.contentHash],
        afterHashes: [folded.ack.contentHash],
        details: { thread_id: write.threadId, version: folded.ack.version, version_changed: folded.versionChanged, trust_state: folded.ack.trust.state },
      });
      return folded.ack;
    }
  }
  if (generated === undefined) {
    throw new ContextHubError("DUPLICATE_VANISHED", "the entry this write was to fold into is gone or has changed; nothing was stored", {
      remedy: "generate embeddings and summaries for the entry and commit it again",
    });
  }
  return recordCreated(scope, caller, write, await scope.insert(caller, write, generated, initialTrust(write.source, caller, findings)));
}

/** Queues the audit record of a new entry in its transaction, and passes its acknowledgement on. */
function recordCreated(scope: EntryWriteScope, caller: Principal, write: EntryWrite, inserted: EntryAck): EntryAck {
  scope.audit.record(caller.tenant, {
    actor: caller.subject,
    action: "entry.create",
    outcome: "ok",
    targetIds: [inserted.id],
    beforeHashes: [],
    afterHashes: [inserted.contentHash],
    details: {
      thread_id: write.threadId,
      source: write.source,
      trust_state: inserted.trust.state,
      trust_reasons: inserted.trust.reasons,
      previously_deleted: inserted.previouslyDeleted,
    },
  });
  return inserted;
}

function validateDeleteReason(reason: string | undefined): string {
  const value = reason ?? "";
  if (value.length > maxDeleteReasonLength) throw invalidArgument(`reason must be at most ${maxDeleteReasonLength} characters (got ${value.length})`);
  if (value.includes("\u0000")) throw invalidArgument("reason must not contain NUL characters");
  return value;
}

/** Item failures of a non-atomic call that were permission denials, for the audit log. */
function deniedItems(results: readonly { requestedId: string; result: ItemResult<unknown> }[]): { targetId: string; message: string }[] {
  return results.flatMap(({ requestedId, result }) => (!result.ok && result.error.code === "PERMISSION_DENIED" ? [{ targetId: requestedId, message: result.error.message }] : []));
}

/** `fn`'s outcome, after recording the permission denials its items reported. */
async function recordingItemDenials<T>(
  denials: DenialRecorder,
  caller: Principal,
  action: AuditAction,
  outcome: Outcome<T>,
  items: (result: T) => readonly { requestedId: string; result: ItemResult<unknown> }[],
): Promise<Outcome<T>> {
  if (!outcome.replayed) await denials.recordItems(caller, action, deniedItems(items(outcome.result)));
  return outcome;
}

/**
 * The entry service over a repository. Every mutation appends its audit
 * records in its own transaction; `denials` records the calls refused with
 * PERMISSION_DENIED; idempotency keys hold for `expiry` (24 hours by default).
 */
export function createEntryService(repository: EntryRepository, denials: DenialRecorder, screen: WriteScreen, expiry?: IdempotencyExpiry): EntryService {
  return withDenialsRecorded(createEntryOperations(repository, screen, expiry), denials);
}

/** The entry service itself; refusals are recorded by the wrapper `withDenialsRecorded`. */
function createEntryOperations(repository: EntryRepository, screen: WriteScreen, expiry: IdempotencyExpiry | undefined): EntryService {
  const idempotent = createIdempotentRunner(repository, expiry);
  /** Runs `fn` in the call's transaction when it has one (an idempotency key), else in a new one. */
  const within = <T>(scope: EntryWriteScope | undefined, fn: (scope: EntryWriteScope) => Promise<T>): Promise<T> => (scope === undefined ? repository.transaction(fn) : fn(scope));
  const transaction = <T>(fn: (scope: EntryWriteScope) => Promise<T>): Promise<T> => repository.transaction(fn);
  const before: BeforeTransaction = { screen, searchVectorOf: (text) => repository.searchVectorOf(text) };

  return {
    async findDuplicate(principal, key) {
      const caller = requirePrincipal(principal, "context:write");
      return repository.findDuplicate(caller, validateDuplicateKey(key));
    },

    async commit(principal, request) {
      const caller = requirePrincipal(principal, "context:write");
      return idempotent.run(
        caller,
        "Commit",
        request.idempotency,
        // Everything is checked (and screened) before the transaction opens: bad input stores nothing.
        () => screenCommit(before, validateCommit(request.entry, request.generated)),
        (commit, scope) => within(scope, (tx) => commitIn(tx, caller, commit)),
      );
    },

    async commitBatch(principal, request) {
      const caller = requirePrincipal(principal, "context:write");
      return idempotent.run(
        caller,
        "CommitBatch",
        request.idempotency,
        () => {
          validateItemCount(request.entries.length, "entries");
          const valid = validateItems(request.entries, request.atomic, (item, index) => naming(`entries[${index}]`, () => validateCommit(item.entry, item.generated)));
          return completeItems(
            valid,
            request.atomic,
            (index) => `entries[${index}]`,
            (commit) => screenCommit(before, commit),
          );
        },
        (items, scope) =>
          runItems(
            items,
            {
              atomic: request.atomic,
              scope,
              transaction,
              // Every thread lock up front, in one order, so two batches over the same threads cannot deadlock.
              prepare: (tx) =>
                tx.lockThreads(
                  caller,
                  items.flatMap((item) => (item.ok ? [item.value.write.threadId] : [])),
                ),
            },
            (tx, commit) => commitIn(tx, caller, commit),
          ),
      );
    },

    async updateEntries(principal, request) {
      const caller = requirePrincipal(principal, "context:write");
      return idempotent.run(
        caller,
        "UpdateEntries",
        request.idempotency,
        () => {
          validateItemCount(request.updates.length, "updates");
          const valid = validateItems(request.updates, request.atomic, (update, index) => validateEntryChange(update, `updates[${index}]`));
          return completeItems(
            valid,
            request.atomic,
            (index) => `updates[${index}]`,
            (change) => screenChange(before, change),
          );
        },
        async (changes, scope) => {
          const results = await runItems(
            changes,
            {
              atomic: request.atomic,
              scope,
              transaction,
              // Lock every row the call will change up front, in id order, so two calls changing the same entries cannot deadlock.
              prepare: async (tx) => {
                const queries = changes.flatMap((change) => (change.ok ? [change.value.query] : []));
                const resolved = await tx.resolveIds(caller, queries, 1);
                await tx.lockEntries(caller, resolved.flat());
              },
            },
            (tx, change) => updateEntry(tx, caller, change),
          );
          return results.map((result, index) => ({ requestedId: request.updates[index]?.id ?? "", result }));
        },
      );
    },

    async deleteEntries(principal, request) {
      const caller = requirePrincipal(principal, "context:write");
      const reason = validateDeleteReason(request.reason);
      return idempotent.run(
        caller,
        "DeleteEntries",
        request.idempotency,
        (): DeleteTarget => {
          if (request.threadId !== "" && request.ids.length > 0) throw invalidArgument("give either ids or thread_id, not both");
          if (request.threadId !== "") return { kind: "thread", threadId: validateThreadId(request.threadId, "thread_id") };
          if (request.ids.length === 0) throw invalidArgument("give the ids to delete, or a thread_id to delete every entry of it you may change");
          validateItemCount(request.ids.length, "ids");
          return { kind: "ids", queries: request.ids.map((id, index) => toIdQuery(id, `ids[${index}]`)) };
        },
        async (target, scope) => {
          if (target.kind === "thread") {
            const gone = await within(scope, async (tx) => {
              const removed = await tx.deleteThread(caller, target.threadId, reason);
              if (removed.length > 0) {
                tx.audit.record(caller.tenant, {
                  actor: caller.subject,
                  action: "entry.delete",
                  outcome: "ok",
                  targetIds: removed.map((entry) => entry.id),
                  beforeHashes: removed.map((entry) => entry.contentHash),
                  afterHashes: [],
                  details: { thread_id: target.threadId, reason },
                });
              }
              return removed;
            });
            return { results: gone.map(({ id }) => ({ requestedId: id, result: { ok: true as const, value: id } })), deletedCount: gone.length };
          }
          const deleted = new Set<string>();
          const remove = async (tx: EntryWriteScope, resolved: ResolvedId) => {
            // Named twice in one call (say, by id and by prefix): deleted once, reported for both.
            if (!deleted.has(resolved.id)) await deleteEntry(tx, caller, resolved, reason);
            deleted.add(resolved.id);
            return resolved.id;
          };
          const run = async (executor: EntryWriteScope | EntryRepository, tx: EntryWriteScope | undefined) => {
            const resolved = await resolveAll(executor, caller, target.queries, request.atomic);
            const ids = resolved.flatMap((item) => (item.ok ? [item.value.id] : []));
            return runItems(resolved, { atomic: request.atomic, scope: tx, transaction, prepare: (locking) => locking.lockEntries(caller, ids) }, remove);
          };
          // Atomic calls resolve inside their transaction; item-by-item calls resolve first, and each item re-checks under its row lock.
          const results = request.atomic ? await within(scope, (tx) => run(tx, tx)) : await run(scope ?? repository, scope);
          return {
            results: results.map((result, index) => ({ requestedId: target.queries[index]?.input ?? "", result })),
            deletedCount: deleted.size,
          };
        },
      );
    },

    async getEntries(principal, request) {
      return getEntries(repository, requirePrincipal(principal, "context:read"), request);
    },

    async listEntries(principal, request) {
      const caller = requirePrincipal(principal, "context:read");
      const filter = validateSearchFilter(request.filter);
      const page = validatePage(request.limit, request.offset);
      return repository.list(caller, filter, page);
    },

    async listThreads(principal, request) {
      const caller = requirePrincipal(principal, "context:read");
      return repository.listThreads(caller, validatePage(request.limit, request.offset, limits.defaultThreadLimit));
    },

    async getStatistics(principal, request) {
      const caller = requirePrincipal(principal, "context:read");
      const threadId = request.threadId === "" ? undefined : validateThreadId(request.threadId, "thread_id");
      return repository.statistics(caller, threadId);
    },

    async checkIdempotency(principal, key) {
      return idempotent.check(requirePrincipal(principal, "context:write"), key);
    },
  };
}

/**
 * `service` with every refusal recorded: a call failing with
 * PERMISSION_DENIED (a missing scope, a change of an entry the caller may
 * only read, an atomic batch stopped by one) is audited as denied, and so
 * is each item of a non-atomic call that was refused.
 */
function withDenialsRecorded(service: EntryService, denials: DenialRecorder): EntryService {
  // Once a call has succeeded its principal was well-formed (requirePrincipal passed).
  const caller = (principal: Principal | undefined) => principal as Principal;
  const updateAction = (request: UpdateEntriesRequest): AuditAction => (request.updates.some((update) => update.restoredFromVersion !== undefined) ? "entry.restore" : "entry.update");
  return {
    findDuplicate: (principal, key) => denials.guard(principal, "entry.create", [], () => service.findDuplicate(principal, key)),
    commit: (principal, request) => denials.guard(principal, "entry.create", [], () => service.commit(principal, request)),
    commitBatch: (principal, request) => denials.guard(principal, "entry.create", [], () => service.commitBatch(principal, request)),
    updateEntries: (principal, request) =>
      denials.guard(
        principal,
        updateAction(request),
        request.updates.map((update) => update.id),
        async () => recordingItemDenials(denials, caller(principal), updateAction(request), await service.updateEntries(principal, request), (results) => results),
      ),
    deleteEntries: (principal, request) =>
      denials.guard(principal, "entry.delete", request.threadId === "" ? request.ids : [request.threadId], async () =>
        recordingItemDenials(denials, caller(principal), "entry.delete", await service.deleteEntries(principal, request), (result) => result.results),
      ),
    getEntries: (principal, request) => denials.guard(principal, "entry.read", request.ids.slice(0, maxIdsPerGet), () => service.getEntries(principal, request)),
    listEntries: (principal, request) => denials.guard(principal, "entry.read", [], () => service.listEntries(principal, request)),
    listThreads: (principal, request) => denials.guard(principal, "entry.read", [], () => service.listThreads(principal, request)),
    getStatistics: (principal, request) => denials.guard(principal, "entry.read", [], () => service.getStatistics(principal, request)),
    checkIdempotency: (principal, key) => denials.guard(principal, "entry.create", [], () => service.checkIdempotency(principal, key)),
  };
}

/** Re-exported for the transport: how item failures look. */
export type { ItemError, ItemResult };
