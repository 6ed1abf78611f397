// The store's gRPC transport: StoreService handlers translating proto messages to domain calls and back.
import { fromBinary, type DescMessage, type MessageInitShape, type MessageShape } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import {
  ContextHubError,
  isRequestId,
  permissionFromProto,
  reviewDecisionFromProto,
  runWithRequestContext,
  sourceFromProto,
  trustStateFromProto,
  trustStateToProto,
  type ServiceImplementation,
} from "@context-hub/common";
import { storeV1 } from "@context-hub/proto";
import type { ApiKeyService } from "./keys/api-keys.js";
import type { AuditService } from "./audit/audit.js";
import type { DescribeService } from "./describe.js";
import type { HistoryService } from "./history/history.js";
import type { ReviewService } from "./review/review.js";
import type { EntryService } from "./entries/entries.js";
import type { CommitItemResult, DeleteEntriesResult, EntryAck, UpdateItemResult } from "./model/entry-model.js";
import type { Outcome } from "./idempotency/idempotency.js";
import { isItemFailure, toItemError } from "./model/items.js";
import {
  encoderOf,
  idempotencyStateOf,
  toAckMessage,
  toApiKeyInput,
  toApiKeyMessage,
  toAuditFilter,
  toAuditRecordMessage,
  toChainReportMessage,
  toHistoryMessage,
  toEntryFilter,
  toEntryMessage,
  toEntryUpdate,
  toGenerated,
  toGrantees,
  toGrantMessage,
  toItemErrorMessage,
  toItemOutcome,
  toNewEntry,
  toPrincipal,
} from "./messages.js";
import type { SharingService, ShareResult, UnshareResult } from "./sharing/sharing.js";

/** The domain services the transport serves. */
export interface StoreServices {
  entries: EntryService;
  sharing: SharingService;
  apiKeys: ApiKeyService;
  history: HistoryService;
  review: ReviewService;
  audit: AuditService;
  store: DescribeService;
}

/**
 * One idempotent mutation's response mapping: `key` hands the domain the
 * caller's idempotency key with an encoder for the response recorded with
 * it; `respond` answers with the fresh result, or with exactly the bytes
 * recorded by the first call when this one is a replay.
 */
function idempotentResponse<S extends DescMessage, T>(schema: S, toResponse: (result: T) => MessageInitShape<S>) {
  const encode = encoderOf(schema, toResponse);
  return {
    key: (idempotency: storeV1.Idempotency | undefined) => (idempotency === undefined ? undefined : { key: idempotency.key, fingerprint: idempotency.fingerprint, encode }),
    respond: (outcome: Outcome<T>): MessageInitShape<S> | MessageShape<S> => (outcome.replayed ? fromBinary(schema, outcome.response) : toResponse(outcome.result)),
  };
}

const commitResponse = idempotentResponse(storeV1.CommitResponseSchema, (ack: EntryAck) => ({ ack: toAckMessage(ack) }));

const commitBatchResponse = idempotentResponse(storeV1.CommitBatchResponseSchema, (results: CommitItemResult[]) => ({
  results: results.map(toItemOutcome),
}));

const updateResponse = idempotentResponse(storeV1.UpdateEntriesResponseSchema, (results: UpdateItemResult[]) => ({
  results: results.map(({ requestedId, result }) => ({ requestedId, ...toItemOutcome(result) })),
}));

const deleteResponse = idempotentResponse(storeV1.DeleteEntriesResponseSchema, ({ results, deletedCount }: DeleteEntriesResult) => ({
  results: results.map(({ requestedId, result }) => (result.ok ? { requestedId, id: result.value } : { requestedId, error: toItemErrorMessage(result.error) })),
  deletedCount,
}));

const shareResponse = idempotentResponse(storeV1.ShareResponseSchema, (result: ShareResult) => ({
  grants: result.grants.map(toGrantMessage),
  nowSharedIds: result.nowSharedIds,
}));

const unshareResponse = idempotentResponse(storeV1.UnshareResponseSchema, (result: UnshareResult) => ({ revokedCount: result.revokedCount }));

/** Most checks one FindDuplicates call takes (the gateway joins far fewer). */
const maxDuplicateChecks = 1000;

/** The StoreService implementation over the domain services. */
export function createStoreHandlers({ entries, sharing, apiKeys, history, review, audit, store }: StoreServices): ServiceImplementation<typeof storeV1.StoreService> {
  /** One dedup pre-check, scoped by its own caller. */
  const findDuplicate = (check: storeV1.FindDuplicateRequest | storeV1.DuplicateCheck) =>
    entries.findDuplicate(toPrincipal(check.principal), { threadId: check.threadId, source: sourceFromProto(check.source, "source"), contentHash: check.contentHash });

  return {
    async findDuplicate(request) {
      return { entryId: (await findDuplicate(request)) ?? "" };
    },

    async findDuplicates(request) {
      if (request.checks.length > maxDuplicateChecks) {
        throw new ContextHubError("INVALID_ARGUMENT", `checks holds ${request.checks.length} checks; one call takes at most ${maxDuplicateChecks}`);
      }
      const results = await Promise.all(
        request.checks.map(async (check) => {
          const run = async () => {
            try {
              return { entryId: (await findDuplicate(check)) ?? "" };
            } catch (error) {
              if (!isItemFailure(error)) throw error;
              return { error: toItemErrorMessage(toItemError(error)) };
            }
          };
          // A refusal is audited under the request the check came from, not the call that carried it.
          return isRequestId(check.requestId) ? runWithRequestContext({ requestId: check.requestId }, run) : run();
        }),
      );
      return { results };
    },

    async commit(request) {
      const outcome = await entries.commit(toPrincipal(request.principal), {
        entry: toNewEntry(request.entry, "entry"),
        generated: toGenerated(request.generated),
        idempotency: commitResponse.key(request.idempotency),
      });
      return commitResponse.respond(outcome);
    },

    async commitBatch(request) {
      const outcome = await entries.commitBatch(toPrincipal(request.principal), {
        entries: request.entries.map((item, index) => ({ entry: toNewEntry(item.entry, `entries[${index}].entry`), generated: toGenerated(item.generated) })),
        atomic: request.atomic,
        idempotency: commitBatchResponse.key(request.idempotency),
      });
      return commitBatchResponse.respond(outcome);
    },

    async updateEntries(request) {
      const outcome = await entries.updateEntries(toPrincipal(request.principal), {
        updates: request.updates.map(toEntryUpdate),
        atomic: request.atomic,
        idempotency: updateResponse.key(request.idempotency),
      });
      return updateResponse.respond(outcome);
    },

    async deleteEntries(request) {
      const outcome = await entries.deleteEntries(toPrincipal(request.principal), {
        ids: request.ids,
        threadId: request.threadId,
        atomic: request.atomic,
        reason: request.reason,
        idempotency: deleteResponse.key(request.idempotency),
      });
      return deleteResponse.respond(outcome);
    },

    async getEntries(request) {
      const result = await entries.getEntries(toPrincipal(request.principal), { ids: request.ids, includeImages: request.includeImages, includeQuarantined: request.includeQuarantined });
      return {
        entries: result.entries.map(toEntryMessage),
        missing: result.missing,
        withheld: result.withheld.map((item) => ({ id: item.id, trustState: trustStateToProto(item.state) })),
        notReturned: result.notReturned.map((item) => ({ id: item.id, sizeBytes: BigInt(item.sizeBytes), reason: item.reason })),
      };
    },

    async listEntries(request) {
      const result = await entries.listEntries(toPrincipal(request.principal), { filter: toEntryFilter(request.filter), limit: request.limit, offset: request.offset });
      return { entries: result.entries.map(toEntryMessage), hasMore: result.hasMore };
    },

    async listThreads(request) {
      const page = await entries.listThreads(toPrincipal(request.principal), { limit: request.limit, offset: request.offset });
      return {
        threads: page.threads.map((thread) => ({
          threadId: thread.threadId,
          entryCount: thread.entryCount,
          userEntries: thread.userEntries,
          agentEntries: thread.agentEntries,
          firstAt: timestampFromDate(thread.firstAt),
          lastAt: timestampFromDate(thread.lastAt),
        })),
        hasMore: page.hasMore,
        total: page.total,
      };
    },

    async getStatistics(request) {
      const statistics = await entries.getStatistics(toPrincipal(request.principal), { threadId: request.threadId });
      return {
        entries: BigInt(statistics.entries),
        threads: BigInt(statistics.threads),
        userEntries: BigInt(statistics.userEntries),
        agentEntries: BigInt(statistics.agentEntries),
        multimodalEntries: BigInt(statistics.multimodalEntries),
        images: BigInt(statistics.images),
        chunks: BigInt(statistics.chunks),
        textBytes: BigInt(statistics.textBytes),
        ownedEntries: BigInt(statistics.ownedEntries),
        ...(statistics.oldestAt === undefined ? {} : { oldestAt: timestampFromDate(statistics.oldestAt) }),
        ...(statistics.newestAt === undefined ? {} : { newestAt: timestampFromDate(statistics.newestAt) }),
      };
    },

    async share(request) {
      const outcome = await sharing.share(toPrincipal(request.principal), {
        entryIds: request.entryIds,
        threadId: request.threadId,
        grantees: toGrantees(request.grantees),
        permission: permissionFromProto(request.permission, "permission"),
        idempotency: shareResponse.key(request.idempotency),
      });
      return shareResponse.respond(outcome);
    },

    async unshare(request) {
      const outcome = await sharing.unshare(toPrincipal(request.principal), {
        entryIds: request.entryIds,
        threadId: request.threadId,
        grantees: toGrantees(request.grantees),
        permission: permissionFromProto(request.permission, "permission"),
        idempotency: unshareResponse.key(request.idempotency),
      });
      return unshareResponse.respond(outcome);
    },

    async checkIdempotency(request) {
      const state = await entries.checkIdempotency(toPrincipal(request.principal), request.idempotency);
      return { state: idempotencyStateOf[state] };
    },

    async createApiKey(request) {
      return { key: toApiKeyMessage(await apiKeys.create(toApiKeyInput(request.key), request.keyHash)) };
    },

    async listApiKeys(request) {
      const keys = await apiKeys.list({ tenant: request.tenant, includeRevoked: request.includeRevoked });
      return { keys: keys.map(toApiKeyMessage) };
    },

    async revokeApiKey(request) {
      return { key: toApiKeyMessage(await apiKeys.revoke(request.id)) };
    },

    async lookupApiKey(request) {
      const { key, revoked } = await apiKeys.lookup(request.keyHash);
      return key === undefined ? { revoked } : { key: toApiKeyMessage(key), revoked };
    },

    async getEntryHistory(request) {
      const result = await history.getHistory(toPrincipal(request.principal), { id: request.id, version: request.version, limit: request.limit, offset: request.offset });
      return toHistoryMessage(result);
    },

    async listReviewQueue(request) {
      const result = await review.listQueue(toPrincipal(request.principal), {
        states: request.states.map((state, index) => trustStateFromProto(state, `states[${index}]`)),
        threadId: request.threadId,
        limit: request.limit,
        offset: request.offset,
      });
      return { entries: result.entries.map(toEntryMessage), hasMore: result.hasMore };
    },

    async reviewEntry(request) {
      const outcome = await review.review(toPrincipal(request.principal), {
        id: request.id,
        decision: reviewDecisionFromProto(request.decision, "decision"),
        note: request.note,
        expectedVersion: request.expectedVersion,
      });
      return {
        id: outcome.id,
        version: outcome.version,
        previousState: trustStateToProto(outcome.previousState),
        trustState: trustStateToProto(outcome.state),
        reviewedBy: outcome.reviewedBy,
        reviewedAt: timestampFromDate(outcome.reviewedAt),
      };
    },

    async getAuditLog(request) {
      const page = await audit.getLog(toPrincipal(request.principal), { filter: toAuditFilter(request.filter), limit: request.limit, beforeSeq: Number(request.beforeSeq) });
      return { records: page.records.map(toAuditRecordMessage), hasMore: page.hasMore, nextBeforeSeq: BigInt(page.nextBeforeSeq) };
    },

    async verifyAuditLog(request) {
      const reports = await audit.verify(request.tenant);
      return { tenants: reports.map(toChainReportMessage) };
    },

    async purgeHistory(request) {
      const result = await history.purge({ olderThanDays: request.olderThanDays, dryRun: request.dryRun });
      return { entries: BigInt(result.entries), versions: BigInt(result.versions), dryRun: result.dryRun, cutoff: timestampFromDate(result.cutoff) };
    },

    async describe() {
      const description = await store.describe();
      return {
        vectorBackend: description.vectorBackend,
        schemaVersion: description.schemaVersion,
        database: description.database,
        embeddingSpaces: description.embeddingSpaces.map((space) => ({ embeddingModel: space.embeddingModel, dimension: space.dimension, chunkCount: BigInt(space.chunkCount) })),
      };
    },
  };
}
