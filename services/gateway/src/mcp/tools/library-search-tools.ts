/**
 * Searches shaped for a library rather than a pile: `deep_search` ranks
 * passages across entries (where to read, not only what), and `find_items`
 * groups the best entries by kind with a snippet of each. Both run the
 * hybrid search hybrid_search_context runs, with its defaults, and cut
 * passages through the store under the caller's access like every read.
 */
import { runHybridSearch, defaultRerankWeight } from "../../search/hybrid-search.js";
import { searchDeadlines, timed } from "../../search/search-legs.js";
import { passagesOfEntries } from "../../search/entry-passages.js";
import {
  deepSearchInput,
  deepSearchOutput,
  findItemsInput,
  findItemsOutput,
  librarySearchLimits,
} from "../library-search-schemas.js";
import { defineTool, readOnlyTool } from "../tool-definition.js";
import { hybridRequestOf, sharedFilterNote } from "./search-tools.js";
import type { HybridHit, HybridSearchResult } from "../../search/hybrid-search.js";
import type { SearchClient } from "../../clients/search-client.js";
import type { Principal } from "../../principal.js";
import type { HitPassage } from "../../search/search-views.js";

/** Scores rescaled to 0..1 over a list (all 1 when they are equal), as hybrid rescales the fused scores it blends. */
function rescaler(scores: readonly number[]): (score: number) => number {
  const low = Math.min(...scores);
  const high = Math.max(...scores);
  return (score) => (high > low ? (score - low) / (high - low) : 1);
}

/**
 * The best `entries` of a hybrid search for `args` (its defaults for every
 * argument left out), and up to `perEntry` passages of each, scored by the
 * reranker; the warnings of both steps.
 */
export async function bestEntriesWithPassages(
  search: SearchClient,
  principal: Principal,
  mode: string,
  args: Parameters<typeof hybridRequestOf>[0],
  shape: { entries: number; perEntry: number; maxChars?: number | undefined },
): Promise<{ found: HybridSearchResult; passages: Map<string, HitPassage[]>; warnings: string[] }> {
  const found = await timed(mode, "total", () =>
    runHybridSearch(search, principal, hybridRequestOf(args, shape.entries, 0)),
  );
  const warnings = [...found.warnings];
  const passages = await passagesOfEntries(
    search,
    principal,
    {
      query: args.query,
      entryIds: found.hits.map((hit) => hit.entry.id),
      perEntry: shape.perEntry,
      rerankDeadlineMs: searchDeadlines.rerankMs,
      maxChars: shape.maxChars,
    },
    found.times,
    warnings,
  );
  return { found, passages, warnings };
}

export const deepSearchTool = defineTool({
  name: "deep_search",
  title: "Deep search (passages)",
  description: [
    "Passage-level search: hybrid search finds the best entries, then their best passages (several per entry where they rank) are ranked against each other.",
    "Each result is a passage with its entry id, outline node_id and character range, so you can go straight to read_context_range (start, end) or navigate_context (node_id).",
    "Use it for questions answered by a part of a long document; use hybrid_search_context to find whole entries.",
    sharedFilterNote,
  ].join(" "),
  inputSchema: deepSearchInput,
  outputSchema: deepSearchOutput,
  annotations: readOnlyTool,
  scope: "context:read",
  async handler(args, { principal, clients }) {
    const { found, passages, warnings } = await bestEntriesWithPassages(clients.search, principal, "deep", args, {
      entries: args.entries ?? librarySearchLimits.defaultEntries,
      perEntry: args.passages_per_entry ?? librarySearchLimits.defaultPassagesPerEntry,
    });
    // A passage ranks by its own score blended with its entry's, as hybrid blends a reranked passage with the fused
    // score: a strong passage of a weaker entry can pass a weak one of the best entry.
    const entryScore = rescaler(found.hits.map((hit) => hit.score));
    const ranked = found.hits
      .flatMap((hit) =>
        // A passage the reranker scored 0 holds nothing of the query (an entry only the semantic leg brought in).
        (passages.get(hit.entry.id) ?? [])
          .filter((passage) => passage.score !== 0)
          .map((passage) => {
            const ofEntry = entryScore(hit.score);
            return {
              ...entryFields(hit),
              node_id: passage.nodeId,
              start: passage.start,
              end: passage.end,
              text: passage.text,
              score:
                passage.score === null
                  ? ofEntry
                  : defaultRerankWeight * passage.score + (1 - defaultRerankWeight) * ofEntry,
              passage_score: passage.score,
              entry_rank: hit.rank,
            };
          }),
      )
      .sort((a, b) => b.score - a.score || a.entry_rank - b.entry_rank || a.start - b.start)
      .slice(0, args.limit ?? librarySearchLimits.defaultPassages);
    return { results: ranked, count: ranked.length, entries_read: found.hits.length, warnings };
  },
});

export const findItemsTool = defineTool({
  name: "find_items",
  title: "Find items across kinds",
  description: [
    "One search across every kind of entry (notes, documents, prompts, plans, reports…), with the results grouped by kind: each with its rank across all kinds, its score and a snippet of the part that matches best.",
    "Use it to see what the library holds on a subject; filter by kind or title_prefix to narrow it, or read one with get_context_by_ids.",
    sharedFilterNote,
  ].join(" "),
  inputSchema: findItemsInput,
  outputSchema: findItemsOutput,
  annotations: readOnlyTool,
  scope: "context:read",
  async handler(args, { principal, clients }) {
    const {
      found,
      passages: snippets,
      warnings,
    } = await bestEntriesWithPassages(clients.search, principal, "catalogue", args, {
      entries: args.limit ?? librarySearchLimits.defaultItems,
      perEntry: 1,
      maxChars: librarySearchLimits.snippetChars,
    });
    // Groups in the order of their best result; results within a group keep their rank across all kinds.
    const groups = new Map<string, ReturnType<typeof toItem>[]>();
    for (const hit of found.hits) {
      const item = toItem(hit, snippets.get(hit.entry.id)?.[0]);
      const group = groups.get(item.kind) ?? [];
      group.push(item);
      groups.set(item.kind, group);
    }
    return {
      groups: [...groups].map(([kind, results]) => ({ kind, count: results.length, results })),
      count: found.hits.length,
      warnings,
    };
  },
});

/** What a passage or a catalogue row names of its entry: `id` and `trust_state` beside the text let the rendering fence it. */
export function entryFields(hit: HybridHit) {
  const { id, thread_id, kind, title, trust_state } = hit.entry.listing();
  return { id, thread_id, kind, title, trust_state };
}

/** A catalogue row: the entry's listing fields, its rank and score, and its best passage as the snippet (its preview without one). */
function toItem(hit: HybridHit, snippet: HitPassage | undefined) {
  const listing = hit.entry.listing();
  return {
    ...entryFields(hit),
    rank: hit.rank,
    score: hit.score,
    snippet: snippet?.text ?? listing.preview,
    snippet_start: snippet?.start ?? 0,
    snippet_end: snippet?.end ?? Math.min(listing.preview.length, listing.text_length),
    node_id: snippet?.nodeId ?? "",
    updated_at: listing.updated_at,
  };
}

export const librarySearchTools = [deepSearchTool, findItemsTool];
