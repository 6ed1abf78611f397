/**
 * Entries as the tools ask for them: reads, listings, threads, statistics
 * and deletes over EntriesService, with every proto message built and read
 * here. Replies come back as the views MCP callers read.
 */
import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import type { storeV1 } from "@context-hub/proto";
import type { Principal } from "../principal.js";
import type { Idempotency } from "../idempotency.js";
import { toEntryFilter, type SearchFilterArgs } from "./search-filter.js";
import { toEntryListing, toEntryView } from "./entry-views.js";
import type { EntriesServiceClient } from "./peers.js";
import { fromProtoTrustState } from "./proto-enums.js";

const iso = (timestamp: Timestamp | undefined) =>
  timestamp === undefined ? null : timestampDate(timestamp).toISOString();

/** Which entries to delete: ids (full or prefixes) or every entry of a thread the caller may change. */
export interface DeleteRequest {
  ids: string[];
  threadId: string | undefined;
  atomic: boolean;
  reason: string | undefined;
  idempotency: Idempotency | undefined;
}

function toDeleteView(reply: storeV1.DeleteEntriesResponse) {
  const deleted = reply.results.filter((result) => result.error === undefined || result.error.code === "");
  return {
    deleted_count: deleted.length,
    deleted_ids: deleted.map((result) => result.id),
    failed: reply.results
      .filter((result) => result.error !== undefined && result.error.code !== "")
      .map((result) => ({ context_id: result.requestedId, code: result.error!.code, message: result.error!.message })),
  };
}

function toStatisticsView(reply: storeV1.GetStatisticsResponse) {
  return {
    entries: Number(reply.entries),
    threads: Number(reply.threads),
    user_entries: Number(reply.userEntries),
    agent_entries: Number(reply.agentEntries),
    multimodal_entries: Number(reply.multimodalEntries),
    images: Number(reply.images),
    chunks: Number(reply.chunks),
    text_bytes: Number(reply.textBytes),
    owned_entries: Number(reply.ownedEntries),
    oldest_at: iso(reply.oldestAt),
    newest_at: iso(reply.newestAt),
    daily: reply.daily.map((day) => ({
      date: day.date,
      created: Number(day.created),
      created_by_users: Number(day.createdByUsers),
      created_by_agents: Number(day.createdByAgents),
      by_trust_state: {
        unverified: Number(day.unverified),
        verified: Number(day.verified),
        quarantined: Number(day.quarantined),
        rejected: Number(day.rejected),
      },
      writes: Number(day.writes),
    })),
  };
}

/** The entries client over an EntriesService connection. */
export function createEntriesClient(store: EntriesServiceClient) {
  return {
    /** Entries by full id or unique prefix, with what was missing, withheld for its trust state, or left out for the reply budget. */
    async get(principal: Principal, request: { ids: string[]; includeImages: boolean; includeQuarantined: boolean }) {
      const reply = await store.getEntries({
        principal,
        ids: request.ids,
        includeImages: request.includeImages,
        includeQuarantined: request.includeQuarantined,
      });
      return {
        entries: reply.entries.map(toEntryView),
        missing: reply.missing,
        withheld: reply.withheld.map((item) => ({ id: item.id, trust_state: fromProtoTrustState(item.trustState) })),
        not_returned: reply.notReturned.map((item) => ({
          id: item.id,
          size_bytes: Number(item.sizeBytes),
          reason: item.reason,
        })),
      };
    },

    /** One page of the entries matching the search filter arguments, newest first. */
    async list(principal: Principal, filter: SearchFilterArgs, page: { limit: number; offset: number }) {
      const reply = await store.listEntries({
        principal,
        filter: toEntryFilter(filter),
        limit: page.limit,
        offset: page.offset,
      });
      return { results: reply.entries.map(toEntryListing), hasMore: reply.hasMore };
    },

    /** One page of the threads holding entries the caller can see, most recently active first. */
    async listThreads(principal: Principal, page: { limit: number; offset: number }) {
      const reply = await store.listThreads({ principal, limit: page.limit, offset: page.offset });
      return {
        threads: reply.threads.map((thread) => ({
          thread_id: thread.threadId,
          entry_count: thread.entryCount,
          user_entries: thread.userEntries,
          agent_entries: thread.agentEntries,
          first_at: iso(thread.firstAt),
          last_at: iso(thread.lastAt),
        })),
        total: reply.total,
        hasMore: reply.hasMore,
      };
    },

    /** Counts over the entries the caller can see, in all threads or one (undefined). */
    async statistics(principal: Principal, threadId: string | undefined, days = 0) {
      return toStatisticsView(await store.getStatistics({ principal, threadId: threadId ?? "", days }));
    },

    /** Deletes entries; each id is deleted or reported under failed unless the request is atomic. */
    async delete(principal: Principal, request: DeleteRequest) {
      const reply = await store.deleteEntries({
        principal,
        ids: request.ids,
        threadId: request.threadId ?? "",
        atomic: request.atomic,
        reason: request.reason ?? "",
        ...(request.idempotency === undefined ? {} : { idempotency: request.idempotency }),
      });
      return toDeleteView(reply);
    },
  };
}

export type EntriesClient = ReturnType<typeof createEntriesClient>;
