import { histogram } from "@context-hub/common";
import { getContextByIdsInput, getStatisticsInput, listThreadsInput } from "../read-schemas.js";
import { searchContextInput } from "../search-filter-schemas.js";
import { getContextByIdsOutput, listThreadsOutput, searchContextOutput, statisticsOutput } from "../output-schemas.js";
import { defineTool, readOnlyTool } from "../tool-definition.js";

const searchSeconds = histogram(
  "contexthub_search_seconds",
  "Search latency by mode (filter, fts, semantic, hybrid) and leg, in seconds.",
  ["mode", "leg"],
);

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
  async handler(args, { principal, clients }) {
    return clients.entries.get(principal, {
      ids: args.context_ids,
      includeImages: args.include_images ?? false,
      includeQuarantined: args.include_quarantined ?? false,
    });
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
  async handler(args, { principal, clients }) {
    const limit = args.limit ?? 30;
    const offset = args.offset ?? 0;
    const stopTimer = searchSeconds.startTimer({ mode: "filter", leg: "store" });
    const { results, hasMore } = await clients.entries.list(principal, args, { limit, offset }).finally(stopTimer);
    return { results, count: results.length, limit, offset, has_more: hasMore };
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
  async handler(args, { principal, clients }) {
    const limit = args.limit ?? 50;
    const offset = args.offset ?? 0;
    const { threads, total, hasMore } = await clients.entries.listThreads(principal, { limit, offset });
    return { threads, total, limit, offset, has_more: hasMore };
  },
});

export const getStatisticsTool = defineTool({
  name: "get_statistics",
  title: "Get statistics",
  description:
    "Count the entries you can see, in all or in one thread: by source, content type, images, chunks and text size, and how many you own; with days, their activity per day.",
  inputSchema: getStatisticsInput,
  outputSchema: statisticsOutput,
  annotations: readOnlyTool,
  scope: "context:read",
  async handler(args, { principal, clients }) {
    return {
      thread_id: args.thread_id ?? null,
      ...(await clients.entries.statistics(principal, args.thread_id, args.days ?? 0)),
    };
  },
});
