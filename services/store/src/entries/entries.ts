/**
 * The entry domain's service: the entry operations (commit, batches, updates,
 * deletes, reads, threads and statistics) with their scopes checked and their
 * refusals audited. The mutations themselves run in `entry-writes.ts` and
 * `entry-deletes.ts`, the work before their transactions in
 * `entry-screening.ts`. No transport or SQL here; persistence sits behind
 * `EntryRepository`.
 */
import { entryLimits, invalidArgument } from "@context-hub/common";
import { getEntries, maxIdsPerGet } from "./entry-fetch.js";
import type { IdempotencyExpiry, IdempotencyState, Outcome } from "../idempotency/idempotency.js";
import type { IdempotencyInput } from "../model/idempotency-request.js";
import type { ItemError, ItemResult } from "../model/items.js";
import { requirePrincipal, type Principal } from "../model/principal.js";
import { validatePage } from "./entry-validation.js";
import { limits, validateThreadId } from "../model/field-validation.js";
import { validateSearchFilter, type SearchFilterInput } from "../model/search-filter.js";
import { toEntryKinds } from "../model/entry-kinds.js";
import type { EntryRepository } from "./entry-ports.js";
import type {
  CommitBatchRequest,
  CommitItemResult,
  CommitRequest,
  DeleteEntriesRequest,
  DeleteEntriesResult,
  DuplicateKey,
  EntryAck,
  EntryStatistics,
  GetEntriesResult,
  ListEntriesResult,
  Source,
  ThreadPage,
  UpdateEntriesRequest,
  UpdateItemResult,
} from "../model/entry-model.js";
import type { AuditAction, DenialRecorder } from "../audit/audit.js";
import type { WriteScreen } from "../screen/write-screen.js";
import { deleteEntries } from "./entry-deletes.js";
import { commitEntries, commitEntry, createEntryWriter, updateEntries } from "./entry-writes.js";

export interface EntryService {
  /**
   * The id of the caller's entry a write of `key` would fold into, or
   * undefined. It is the caller's latest entry in the thread with that source,
   * if its content hash is `key.contentHash` and no entry of the other source
   * that the caller may see was written after it.
   */
  findDuplicate(
    principal: Principal | undefined,
    key: { threadId: string; source: Source | undefined; contentHash: string },
  ): Promise<string | undefined>;
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
  getEntries(
    principal: Principal | undefined,
    request: { ids: readonly string[]; includeImages: boolean; includeQuarantined?: boolean | undefined },
  ): Promise<GetEntriesResult>;
  /** Entries matching a filter, newest first, as far as the caller may see them. */
  listEntries(
    principal: Principal | undefined,
    request: { filter: SearchFilterInput | undefined; limit: number; offset: number },
  ): Promise<ListEntriesResult>;
  /** Threads holding entries the caller may see, most recently active first, counting only those entries. */
  listThreads(principal: Principal | undefined, request: { limit: number; offset: number }): Promise<ThreadPage>;
  /** Counts over the entries the caller may see, in one thread or all. */
  getStatistics(
    principal: Principal | undefined,
    request: { threadId: string; days?: number },
  ): Promise<EntryStatistics>;
  /** Where an idempotency key stands for the caller (new, replay or conflict), without writing anything. */
  checkIdempotency(principal: Principal | undefined, key: IdempotencyInput | undefined): Promise<IdempotencyState>;
}

const contentHashPattern = /^[0-9a-f]{64}$/;

function validateDuplicateKey(key: {
  threadId: string;
  source: Source | undefined;
  contentHash: string;
}): DuplicateKey {
  const threadId = validateThreadId(key.threadId, "thread_id");
  if (key.source === undefined) throw invalidArgument("source must be user or agent");
  if (!contentHashPattern.test(key.contentHash))
    throw invalidArgument("content_hash must be a lowercase hex SHA-256 (64 characters)");
  return { threadId, source: key.source, contentHash: key.contentHash };
}

/** Item failures of a non-atomic call that were permission denials, for the audit log. */
function deniedItems(
  results: readonly { requestedId: string; result: ItemResult<unknown> }[],
): { targetId: string; message: string }[] {
  return results.flatMap(({ requestedId, result }) =>
    !result.ok && result.error.code === "PERMISSION_DENIED"
      ? [{ targetId: requestedId, message: result.error.message }]
      : [],
  );
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
 * PERMISSION_DENIED; idempotency keys hold for `expiry` (24 hours by default);
 * entries may have the built-in kinds and `kinds` (STORE_ENTRY_KINDS).
 */
export function createEntryService(
  repository: EntryRepository,
  denials: DenialRecorder,
  screen: WriteScreen,
  expiry?: IdempotencyExpiry,
  kinds: readonly string[] = [],
): EntryService {
  return withDenialsRecorded(createEntryOperations(repository, screen, expiry, toEntryKinds(kinds)), denials);
}

/** The entry service itself; refusals are recorded by the wrapper `withDenialsRecorded`. */
function createEntryOperations(
  repository: EntryRepository,
  screen: WriteScreen,
  expiry: IdempotencyExpiry | undefined,
  kinds: readonly string[],
): EntryService {
  const writer = createEntryWriter(repository, screen, expiry, kinds);
  return {
    async findDuplicate(principal, key) {
      const caller = requirePrincipal(principal, "context:write");
      return repository.findDuplicate(caller, validateDuplicateKey(key));
    },

    async commit(principal, request) {
      return commitEntry(writer, requirePrincipal(principal, "context:write"), request);
    },

    async commitBatch(principal, request) {
      return commitEntries(writer, requirePrincipal(principal, "context:write"), request);
    },

    async updateEntries(principal, request) {
      return updateEntries(writer, requirePrincipal(principal, "context:write"), request);
    },

    async deleteEntries(principal, request) {
      return deleteEntries(writer, requirePrincipal(principal, "context:write"), request);
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
      const days = request.days ?? 0;
      if (!Number.isInteger(days) || days < 0 || days > entryLimits.statisticsDays)
        throw invalidArgument(`days must be 0 to ${entryLimits.statisticsDays} (got ${days})`);
      return repository.statistics(caller, threadId, days);
    },

    async checkIdempotency(principal, key) {
      return writer.idempotent.check(requirePrincipal(principal, "context:write"), key);
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
  const updateAction = (request: UpdateEntriesRequest): AuditAction =>
    request.updates.some((update) => update.restoredFromVersion !== undefined) ? "entry.restore" : "entry.update";
  return {
    findDuplicate: (principal, key) =>
      denials.guard(principal, "entry.create", [], () => service.findDuplicate(principal, key)),
    commit: (principal, request) =>
      denials.guard(principal, "entry.create", [], () => service.commit(principal, request)),
    commitBatch: (principal, request) =>
      denials.guard(principal, "entry.create", [], () => service.commitBatch(principal, request)),
    updateEntries: (principal, request) =>
      denials.guard(
        principal,
        updateAction(request),
        request.updates.map((update) => update.id),
        async () =>
          recordingItemDenials(
            denials,
            caller(principal),
            updateAction(request),
            await service.updateEntries(principal, request),
            (results) => results,
          ),
      ),
    deleteEntries: (principal, request) =>
      denials.guard(principal, "entry.delete", request.threadId === "" ? request.ids : [request.threadId], async () =>
        recordingItemDenials(
          denials,
          caller(principal),
          "entry.delete",
          await service.deleteEntries(principal, request),
          (result) => result.results,
        ),
      ),
    getEntries: (principal, request) =>
      denials.guard(principal, "entry.read", request.ids.slice(0, maxIdsPerGet), () =>
        service.getEntries(principal, request),
      ),
    listEntries: (principal, request) =>
      denials.guard(principal, "entry.read", [], () => service.listEntries(principal, request)),
    listThreads: (principal, request) =>
      denials.guard(principal, "entry.read", [], () => service.listThreads(principal, request)),
    getStatistics: (principal, request) =>
      denials.guard(principal, "entry.read", [], () => service.getStatistics(principal, request)),
    checkIdempotency: (principal, key) =>
      denials.guard(principal, "entry.create", [], () => service.checkIdempotency(principal, key)),
  };
}

/** Re-exported for the transport: how item failures look. */
export type { ItemError, ItemResult };
