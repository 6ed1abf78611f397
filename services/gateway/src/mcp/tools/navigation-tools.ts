import type { RangeSelector } from "../../clients/navigation-client.js";
import { charRange, grepSettings } from "../peer-arguments.js";
import {
  grepInput,
  grepOutput,
  navigateInput,
  navigateOutput,
  readRangeInput,
  readRangeOutput,
} from "../navigation-schemas.js";
import { defineTool, readOnlyTool } from "../tool-definition.js";

export const navigateContextTool = defineTool({
  name: "navigate_context",
  title: "Navigate an entry",
  description: [
    "Show the heading outline of one entry: every Markdown section with a stable node_id, its character span and line range, and the summary generated for it.",
    "Use it on a long entry before reading: then read just the sections you need with read_context_range (node_id).",
    "A long outline comes in pages (max_nodes nodes, default 200, and at most about 256 KiB each): while next_offset is not null, call again with offset = next_offset for the next page; total_nodes counts every page.",
    "To move through the outline, give node_id and move (parent, children, previous, next, siblings): nodes then holds the nodes reached, each with its parent_id and child_count, to move on from; past the root, the first or the last it is empty with a note.",
    "A quarantined or rejected entry is refused (naming its trust state) unless include_quarantined is set.",
  ].join(" "),
  inputSchema: navigateInput,
  outputSchema: navigateOutput,
  annotations: readOnlyTool,
  scope: "context:read",
  async handler(args, { principal, clients }) {
    const outline = await clients.navigation.navigate(principal, {
      id: args.context_id,
      maxDepth: args.max_depth ?? 0,
      includeQuarantined: args.include_quarantined ?? false,
      offset: args.offset ?? 0,
      maxNodes: args.max_nodes ?? 0,
      nodeId: args.node_id,
      move: args.move,
    });
    if (args.include_node_summaries !== false) return outline;
    return { ...outline, nodes: outline.nodes.map((node) => ({ ...node, summary: "" })) };
  },
});

function toRange(
  args: { start_line?: number | undefined; end_line?: number | undefined; node_id?: string | undefined } & Parameters<
    typeof charRange
  >[0],
): RangeSelector {
  if (args.node_id !== undefined) return { nodeId: args.node_id };
  if (args.start_line !== undefined && args.end_line !== undefined)
    return { lines: { start: args.start_line, end: args.end_line } };
  const { start, end } = charRange(args);
  return { chars: { start: start ?? 0, end: end ?? 0 } };
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
  async handler(args, { principal, clients }) {
    return clients.navigation.readRange(principal, {
      id: args.context_id,
      range: toRange(args),
      maxChars: args.max_chars ?? 0,
      includeQuarantined: args.include_quarantined ?? false,
    });
  },
});

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
  async handler(args, { principal, clients }) {
    const { regex, caseInsensitive, maxEntries } = grepSettings(args);
    return clients.navigation.grep(principal, {
      pattern: args.pattern,
      regex,
      caseInsensitive,
      filter: args,
      output: args.output_mode ?? "content",
      contextLines: args.context_lines ?? 0,
      maxMatches: args.max_matches ?? 0,
      maxMatchesPerEntry: args.max_matches_per_entry ?? 0,
      maxEntries,
    });
  },
});
