// The store's gRPC transport for entries: EntriesService handlers translating proto messages to entries domain calls and back.
import {
  ContextHubError,
  isRequestId,
  runWithRequestContext,
  sourceFromProto,
  trustStateToProto,
  type ServiceImplementation,
} from "@context-hub/common";
import { storeV1 } from "@context-hub/proto";
import type { EntryService } from "./entries/entries.js";
import {
  toAckMessage,
  toEntryUpdate,
  toGenerated,
  toItemOutcome,
  toNewEntry,
  toStatisticsResponse,
  toThreadsResponse,
} from "./entries-messages.js";
import { idempotentResponse, toEntryFilter, toEntryMessage, toItemErrorMessage, toPrincipal } from "./messages.js";
import type { CommitItemResult, DeleteEntriesResult, EntryAck, UpdateItemResult } from "./model/entry-model.js";
import { isItemFailure, toItemError } from "./model/items.js";

const commitResponse = idempotentResponse(storeV1.CommitResponseSchema, (ack: EntryAck) => ({
  ack: toAckMessage(ack),
}));

const commitBatchResponse = idempotentResponse(storeV1.CommitBatchResponseSchema, (results: CommitItemResult[]) => ({
  results: results.map(toItemOutcome),
}));

const updateResponse = idempotentResponse(storeV1.UpdateEntriesResponseSchema, (results: UpdateItemResult[]) => ({
  results: results.map(({ requestedId, result }) => ({ requestedId, ...toItemOutcome(result) })),
}));

const deleteResponse = idempotentResponse(
  storeV1.DeleteEntriesResponseSchema,
  ({ results, deletedCount }: DeleteEntriesResult) => ({
    results: results.map(({ requestedId, result }) =>
      result.ok ? { requestedId, id: result.value } : { requestedId, error: toItemErrorMessage(result.error) },
    ),
    deletedCount,
  }),
);

/** Most checks one FindDuplicates call takes (the gateway joins far fewer). */
const maxDuplicateChecks = 1000;

/** The EntriesService handlers, keyed by method. */
type EntriesHandlers = ServiceImplementation<typeof storeV1.EntriesService>;

/** The dedup pre-checks: one, or many at once, each scoped by its own caller and request. */
function createDuplicateHandlers(entries: EntryService): Pick<EntriesHandlers, "findDuplicate" | "findDuplicates"> {
  /** One dedup pre-check, scoped by its own caller. */
  const findDuplicate = (check: storeV1.FindDuplicateRequest | storeV1.DuplicateCheck) =>
    entries.findDuplicate(toPrincipal(check.principal), {
      threadId: check.threadId,
      source: sourceFromProto(check.source, "source"),
      contentHash: check.contentHash,
    });

  return {
    async findDuplicate(request) {
      return { entryId: (await findDuplicate(request)) ?? "" };
    },

    async findDuplicates(request) {
      if (request.checks.length > maxDuplicateChecks) {
        throw new ContextHubError(
          "INVALID_ARGUMENT",
          `checks holds ${request.checks.length} checks; one call takes at most ${maxDuplicateChecks}`,
        );
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
  };
}

/** The reads: entries by id, a filtered listing, the threads and the statistics. */
function createEntryReadHandlers(
  entries: EntryService,
): Pick<EntriesHandlers, "getEntries" | "listEntries" | "listThreads" | "getStatistics"> {
  return {
    async getEntries(request) {
      const result = await entries.getEntries(toPrincipal(request.principal), {
        ids: request.ids,
        includeImages: request.includeImages,
        includeQuarantined: request.includeQuarantined,
      });
      return {
        entries: result.entries.map(toEntryMessage),
        missing: result.missing,
        withheld: result.withheld.map((item) => ({ id: item.id, trustState: trustStateToProto(item.state) })),
        notReturned: result.notReturned.map((item) => ({
          id: item.id,
          sizeBytes: BigInt(item.sizeBytes),
          reason: item.reason,
        })),
      };
    },

    async listEntries(request) {
      const result = await entries.listEntries(toPrincipal(request.principal), {
        filter: toEntryFilter(request.filter),
        limit: request.limit,
        offset: request.offset,
      });
      return { entries: result.entries.map(toEntryMessage), hasMore: result.hasMore };
    },

    async listThreads(request) {
      return toThreadsResponse(
        await entries.listThreads(toPrincipal(request.principal), { limit: request.limit, offset: request.offset }),
      );
    },

    async getStatistics(request) {
      return toStatisticsResponse(
        await entries.getStatistics(toPrincipal(request.principal), { threadId: request.threadId, days: request.days }),
      );
    },
  };
}

/** The EntriesService implementation over the entries domain. */
export function createEntriesHandlers(entries: EntryService): EntriesHandlers {
  return {
    ...createDuplicateHandlers(entries),

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
        entries: request.entries.map((item, index) => ({
          entry: toNewEntry(item.entry, `entries[${index}].entry`),
          generated: toGenerated(item.generated),
        })),
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

    ...createEntryReadHandlers(entries),
  };
}
