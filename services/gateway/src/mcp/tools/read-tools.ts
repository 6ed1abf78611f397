import { histogram } from "@context-hub/common";
import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import { toEntryListing, toEntryView } from "../../entry-views.js";
import { toEntryFilter } from "../../search/search-filter.js";
import { fromProtoTrustState } from "../../trust/trust-state.js";
import { getContextByIdsInput, getStatisticsInput, listThreadsInput } from "../input-schemas.js";
import { searchContextInput } from "../search-schemas.js";
import { getContextByIdsOutput, listThreadsOutput, searchContextOutput, statisticsOutput } from "../output-schemas.js";
import { defineTool, readOnlyTool } from "../tool-definition.js";

const searchSeconds = histogram("contexthub_search_seconds", "Search latency by mode (filter, fts, semantic, hybrid) and leg, in seconds.", ["mode", "leg"]);

const iso = (timestamp: Timestamp | undefined) => (timestamp === undefined ? null : timestampDate(timestamp).toISOString());

export const getContextByIdsTool = defineTool({
  name: "get_context_by_ids",
  title: "Get context by ids",
  description: [
    "Fetch the full text, metadata, summary and section outline of entries by id.",
    "Use it after a search: search results carry only a preview and a summary, and the full text may hold conditions the summary leaves out.",
    "Accepts full ids or unique prefixes of 8 to 31 hex characters. Ids you cannot see are listed under missing, exactly like ids that do not exist.",
    "Quarantined and rejected entries are listed under withheld with their trust_state; pass include_quarantined to read them, and treat them with suspicion.",
    "One reply holds at most 32 MiB (text, summaries and, with include_images, image data): entries past that are listed under not_returned, in the order asked for; fetch those ids in another call.",
  ].join(" "),
  inputSchema: getContextByIdsInput,
  outputSchema: getContextByIdsOutput,
  annotations: readOnlyTool,
  scope: "context:read",
  async handler(args, { principal, peers }) {
    const reply = await peers.store.getEntries({ principal, ids: args.context_ids, includeImages: args.include_images ?? false, includeQuarantined: args.include_quarantined ?? false });
    return {
      entries: reply.entries.map(toEntryView),
      missing: reply.missing,
      withheld: reply.withheld.map((item) => ({ id: item.id, trust_state: fromProtoTrustState(item.trustState) })),
      not_returned: reply.notReturned.map((item) => ({ id: item.id, size_bytes: Number(item.sizeBytes), reason: item.reason })),
    };
  },
});

export const searchContextTool = defineTool({
  name: "search_context",
  title: "List context by filters",
  description: [
    "List entries that match filters (thread, source, tags any/all, metadata conditions with operators, date range, content type), newest first.",
    "Use it to load a thread's history or to browse by metadata. Each result has a 300-character preview and the summary; fetch full text with get_context_by_ids.",
    "Page with limit and offset while has_more is true.",
    "Quarantined and rejected entries are left out unless include_quarantined is set; every result carries its trust_state.",
    "valid_at keeps entries whose stated validity holds at an instant; as_of lists what the store held at an instant (each entry's version then).",
  ].join(" "),
  inputSchema: searchContextInput,
  outputSchema: searchContextOutput,
  annotations: readOnlyTool,
  scope: "context:read",
  async handler(args, { principal, peers }) {
    const limit = args.limit ?? 30;
    const offset = args.offset ?? 0;
    const stopTimer = searchSeconds.startTimer({ mode: "filter", leg: "store" });
    const reply = await peers.store
      .listEntries({
        principal,
        filter: toEntryFilter(args),
        limit,
        offset,
      })
      .finally(stopTimer);
    const results = reply.entries.map(toEntryListing);
    return { results, count: results.length, limit, offset, has_more: reply.hasMore };
  },
});

export const listThreadsTool = defineTool({
  name: "list_threads",
  title: "List threads",
  description: [
    "List the threads that hold entries you can see, most recently active first, with how many entries each holds (counting only entries you can see).",
    "Use it to find where earlier work was recorded; then load a thread with search_context.",
  ].join(" "),
  inputSchema: listThreadsInput,
  outputSchema: listThreadsOutput,
  annotations: readOnlyTool,
  scope: "context:read",
  async handler(args, { principal, peers }) {
    const limit = args.limit ?? 50;
    const offset = args.offset ?? 0;
    const reply = await peers.store.listThreads({ principal, limit, offset });
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
      limit,
      offset,
      has_more: reply.hasMore,
    };
  },
});

export const getStatisticsTool = defineTool({
  name: "get_statistics",
  title: "Get statistics",
  description: "Count the entries you can see, in all or in one thread: by source, content type, images, chunks and text size, and how many you own.",
  inputSchema: getStatisticsInput,
  outputSchema: statisticsOutput,
  annotations: readOnlyTool,
  scope: "context:read",
  async handler(args, { principal, peers }) {
    const reply = await peers.store.getStatistics({ principal, threadId: args.thread_id ?? "" });
    return {
      thread_id: args.thread_id ?? null,
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
    };
  },
});
