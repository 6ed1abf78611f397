/** Reading inside entries as the tools ask for it: outlines, ranges and grep over SearchService, proto built and read here. */
import type { MessageInitShape } from "@bufbuild/protobuf";
import { searchV1, storeV1 } from "@context-hub/proto";
import type { Principal } from "../principal.js";
import { toEntryFilter, type SearchFilterArgs } from "./search-filter.js";
import type { SearchServiceClient } from "./peers.js";
import { fromProtoTrustState } from "./proto-enums.js";

/** Which part of an entry to read: an outline node, a line range (inclusive), or a character range. */
export type RangeSelector =
  | { nodeId: string }
  | { lines: { start: number; end: number } }
  | { chars: { start: number; end: number } };

/** A move through an entry's outline from one node (navigate_context's `move`). */
export type OutlineMove = "parent" | "children" | "previous" | "next" | "siblings";

const outlineMoveOf: Record<OutlineMove, searchV1.OutlineMove> = {
  parent: searchV1.OutlineMove.PARENT,
  children: searchV1.OutlineMove.CHILDREN,
  previous: searchV1.OutlineMove.PREVIOUS,
  next: searchV1.OutlineMove.NEXT,
  siblings: searchV1.OutlineMove.SIBLINGS,
};

export type GrepOutputMode = "content" | "files_with_matches" | "count";

export interface GrepRequest {
  pattern: string;
  regex: boolean;
  caseInsensitive: boolean;
  filter: SearchFilterArgs;
  output: GrepOutputMode;
  contextLines: number;
  maxMatches: number;
  maxMatchesPerEntry: number;
  maxEntries: number;
}

const grepOutputOf: Record<GrepOutputMode, searchV1.GrepOutput> = {
  content: searchV1.GrepOutput.CONTENT,
  files_with_matches: searchV1.GrepOutput.FILES_WITH_MATCHES,
  count: searchV1.GrepOutput.COUNT,
};

function toProtoRange(range: RangeSelector): MessageInitShape<typeof searchV1.ReadRangeRequestSchema>["range"] {
  if ("nodeId" in range) return { case: "nodeId", value: range.nodeId };
  if ("lines" in range) return { case: "lines", value: range.lines };
  return { case: "chars", value: range.chars };
}

function toGrepView(reply: searchV1.GrepResponse) {
  return {
    results: reply.entries.map((entry) => {
      const trustState = fromProtoTrustState(entry.trustState);
      return {
        id: entry.entryId,
        thread_id: entry.threadId,
        trust_state: trustState,
        match_count: entry.matchCount,
        timed_out: entry.timedOut,
        matches: entry.matches.map((match) => ({
          id: entry.entryId,
          trust_state: trustState,
          line: match.line,
          start: match.span?.start ?? 0,
          end: match.span?.end ?? 0,
          text: match.lineText,
          before: match.before,
          after: match.after,
        })),
      };
    }),
    entries_scanned: reply.entriesScanned,
    total_matches: reply.totalMatches,
    truncated: reply.truncated,
    timed_out: reply.timedOut,
    warnings: reply.warnings,
  };
}

/** A page of an entry's outline as navigate_context returns it; `offset` is where the page starts. */
function toOutlineView(reply: searchV1.NavigateEntryResponse, offset: number) {
  return {
    id: reply.entry?.id ?? "",
    thread_id: reply.entry?.threadId ?? "",
    trust_state: fromProtoTrustState(reply.entry?.trustState ?? storeV1.TrustState.UNSPECIFIED),
    summary: reply.entry?.summary ?? "",
    text_length: reply.entry?.textLength ?? 0,
    line_count: reply.lineCount,
    nodes: reply.nodes.map((node) => ({
      node_id: node.nodeId,
      heading: node.heading,
      level: node.level,
      start: node.span?.start ?? 0,
      end: node.span?.end ?? 0,
      start_line: node.startLine,
      end_line: node.endLine,
      path: node.path,
      summary: node.summary,
      parent_id: node.parentId === "" ? null : node.parentId,
      child_count: node.childCount,
    })),
    total_nodes: reply.totalNodes,
    offset,
    next_offset: reply.nextOffset === 0 ? null : reply.nextOffset,
    ...(reply.note === "" ? {} : { note: reply.note }),
  };
}

/** A read range as read_context_range returns it, with where the next read starts when it was cut. */
function toRangeView(reply: searchV1.ReadRangeResponse) {
  return {
    id: reply.entryId,
    trust_state: fromProtoTrustState(reply.trustState),
    text: reply.text,
    start: reply.span?.start ?? 0,
    end: reply.span?.end ?? 0,
    start_line: reply.startLine,
    end_line: reply.endLine,
    truncated: reply.truncated,
    next_start: reply.truncated ? (reply.span?.end ?? null) : null,
    text_length: reply.textLength,
    line_count: reply.lineCount,
    heading: reply.heading === "" ? null : reply.heading,
  };
}

/** The navigation client over a SearchService connection. */
export function createNavigationClient(search: SearchServiceClient) {
  return {
    /**
     * One page of an entry's heading outline, to `maxDepth` levels (0: all), from node `offset`, at most `maxNodes`
     * nodes (0: the store's default); `next_offset` is where the next page starts, null after the last. With
     * `nodeId` and `move`, the page holds the nodes that move reaches instead, and `note` says why when there are none.
     */
    async navigate(
      principal: Principal,
      request: {
        id: string;
        maxDepth: number;
        includeQuarantined: boolean;
        offset: number;
        maxNodes: number;
        nodeId?: string | undefined;
        move?: OutlineMove | undefined;
      },
    ) {
      const reply = await search.navigateEntry({
        principal,
        id: request.id,
        maxDepth: request.maxDepth,
        includeQuarantined: request.includeQuarantined,
        offset: request.offset,
        maxNodes: request.maxNodes,
        nodeId: request.nodeId ?? "",
        move: request.move === undefined ? searchV1.OutlineMove.UNSPECIFIED : outlineMoveOf[request.move],
      });
      return toOutlineView(reply, request.offset);
    },

    /** Part of an entry's text, at most `maxChars` (0: the service's default). */
    async readRange(
      principal: Principal,
      request: { id: string; range: RangeSelector; maxChars: number; includeQuarantined: boolean },
    ) {
      const reply = await search.readRange({
        principal,
        id: request.id,
        range: toProtoRange(request.range),
        maxChars: request.maxChars,
        includeQuarantined: request.includeQuarantined,
      });
      return toRangeView(reply);
    },

    /** Lines matching a pattern in the entries the filter selects, newest first. */
    async grep(principal: Principal, request: GrepRequest) {
      const reply = await search.grep({
        principal,
        pattern: request.pattern,
        regex: request.regex,
        caseInsensitive: request.caseInsensitive,
        filter: toEntryFilter(request.filter),
        output: grepOutputOf[request.output],
        contextLines: request.contextLines,
        maxMatches: request.maxMatches,
        maxMatchesPerEntry: request.maxMatchesPerEntry,
        maxEntries: request.maxEntries,
      });
      return toGrepView(reply);
    },
  };
}

export type NavigationClient = ReturnType<typeof createNavigationClient>;
