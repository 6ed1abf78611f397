import type { MessageInitShape } from "@bufbuild/protobuf";
import { searchV1, storeV1 } from "@context-hub/proto";
import { fromProtoTrustState } from "../../trust/trust-state.js";
import { toEntryFilter } from "../../search/search-filter.js";
import { grepInput, grepOutput, navigateInput, navigateOutput, readRangeInput, readRangeOutput } from "../search-schemas.js";
import { defineTool, readOnlyTool } from "../tool-definition.js";

export const navigateContextTool = defineTool({
  name: "navigate_context",
  title: "Navigate an entry",
  description: [
    "Show the heading outline of one entry: every Markdown section with a stable node_id, its character span and line range, and the summary generated for it.",
    "Use it on a long entry before reading: then read just the sections you need with read_context_range (node_id).",
    "A quarantined or rejected entry is refused (naming its trust state) unless include_quarantined is set.",
  ].join(" "),
  inputSchema: navigateInput,
  outputSchema: navigateOutput,
  annotations: readOnlyTool,
  scope: "context:read",
  async handler(args, { principal, peers }) {
    const reply = await peers.search.navigateEntry({ principal, id: args.context_id, maxDepth: args.max_depth ?? 0, includeQuarantined: args.include_quarantined ?? false });
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
        child_count: node.childCount,
      })),
    };
  },
});

function toRange(args: {
  start?: number | undefined;
  end?: number | undefined;
  start_line?: number | undefined;
  end_line?: number | undefined;
  node_id?: string | undefined;
}): MessageInitShape<typeof searchV1.ReadRangeRequestSchema>["range"] {
  if (args.node_id !== undefined) return { case: "nodeId", value: args.node_id };
  if (args.start_line !== undefined && args.end_line !== undefined) return { case: "lines", value: { start: args.start_line, end: args.end_line } };
  return { case: "chars", value: { start: args.start ?? 0, end: args.end ?? 0 } };
}

export const readContextRangeTool = defineTool({
  name: "read_context_range",
  title: "Read part of an entry",
  description: [
    "Read part of one entry's text: a character range (start, end), a line range (start_line, end_line, inclusive) or an outline section (node_id from navigate_context).",
    "At most max_chars (default 10000) come back; when truncated, continue with start = next_start.",
    "A quarantined or rejected entry is refused (naming its trust state) unless include_quarantined is set; the result carries the entry's trust_state.",
  ].join(" "),
  inputSchema: readRangeInput,
  outputSchema: readRangeOutput,
  annotations: readOnlyTool,
  scope: "context:read",
  async handler(args, { principal, peers }) {
    const reply = await peers.search.readRange({ principal, id: args.context_id, range: toRange(args), maxChars: args.max_chars ?? 0, includeQuarantined: args.include_quarantined ?? false });
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
  },
});

const grepOutputOf = {
  content: searchV1.GrepOutput.CONTENT,
  files_with_matches: searchV1.GrepOutput.FILES_WITH_MATCHES,
  count: searchV1.GrepOutput.COUNT,
} as const;

export const grepContextTool = defineTool({
  name: "grep_context",
  title: "Grep entries",
  description: [
    "Find lines matching a literal string or a regular expression (regex: true, JavaScript syntax) in the entries you can see, newest first, with line numbers and context.",
    "Narrow it with the usual filters (thread_id, tags, metadata, dates, valid_at); as_of greps the texts the store held at that instant; quarantined and rejected entries only with include_quarantined.",
    "output_mode files_with_matches lists only the entries; count counts matches per entry. Every entry and match carries its trust_state.",
    "A slow pattern is stopped per entry (timed_out); results report how many entries were scanned and whether a limit cut the scan.",
  ].join(" "),
  inputSchema: grepInput,
  outputSchema: grepOutput,
  annotations: readOnlyTool,
  scope: "context:read",
  async handler(args, { principal, peers }) {
    const reply = await peers.search.grep({
      principal,
      pattern: args.pattern,
      regex: args.regex ?? false,
      caseInsensitive: args.case_insensitive ?? false,
      filter: toEntryFilter(args),
      output: grepOutputOf[args.output_mode ?? "content"],
      contextLines: args.context_lines ?? 0,
      maxMatches: args.max_matches ?? 0,
      maxMatchesPerEntry: args.max_matches_per_entry ?? 0,
      maxEntries: args.max_entries ?? 0,
    });
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
  },
});
