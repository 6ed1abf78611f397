/**
 * Conversions between SearchService protobuf messages and the search domain,
 * for the transport (search-server.ts). Enum values this build does not know
 * are INVALID_ARGUMENT naming the field.
 */
import type { MessageInitShape } from "@bufbuild/protobuf";
import { invalidArgument, trustStateToProto } from "@context-hub/common";
import { searchV1, storeV1 } from "@context-hub/proto";
import type { GrepOutputMode } from "./search/grep.js";
import { toEntryMessage } from "./messages.js";
import type { RangeRequest } from "./search/navigation.js";
import type { OutlineMove } from "./search/outline-moves.js";
import type { GrepResult, ReadRangeResult, SearchHitResult } from "./search/search-model.js";
import type { FullTextMode } from "./search/text-search.js";

const modeOf: Record<number, FullTextMode> = {
  [searchV1.FullTextMode.UNSPECIFIED]: "match",
  [searchV1.FullTextMode.MATCH]: "match",
  [searchV1.FullTextMode.PREFIX]: "prefix",
  [searchV1.FullTextMode.PHRASE]: "phrase",
  [searchV1.FullTextMode.BOOLEAN]: "boolean",
  [searchV1.FullTextMode.ANY]: "any",
};

const grepOutputOf: Record<number, GrepOutputMode> = {
  [searchV1.GrepOutput.UNSPECIFIED]: "content",
  [searchV1.GrepOutput.CONTENT]: "content",
  [searchV1.GrepOutput.FILES_WITH_MATCHES]: "files_with_matches",
  [searchV1.GrepOutput.COUNT]: "count",
};

const outlineMoveOf: Record<number, OutlineMove | undefined> = {
  [searchV1.OutlineMove.UNSPECIFIED]: undefined,
  [searchV1.OutlineMove.PARENT]: "parent",
  [searchV1.OutlineMove.CHILDREN]: "children",
  [searchV1.OutlineMove.PREVIOUS]: "previous",
  [searchV1.OutlineMove.NEXT]: "next",
  [searchV1.OutlineMove.SIBLINGS]: "siblings",
};

function known<T>(table: Record<number, T>, value: number, field: string): T {
  const found = table[value];
  if (found === undefined) throw invalidArgument(`${field} ${value} is not a known value`);
  return found;
}

export function toFullTextMode(mode: searchV1.FullTextMode): FullTextMode {
  return known(modeOf, mode, "mode");
}

export function toGrepOutput(output: searchV1.GrepOutput): GrepOutputMode {
  return known(grepOutputOf, output, "output");
}

/** The move a NavigateEntry request asks for; undefined (UNSPECIFIED) lists the outline. */
export function toOutlineMove(move: searchV1.OutlineMove): OutlineMove | undefined {
  if (!(move in outlineMoveOf)) throw invalidArgument(`move ${move} is not a known value`);
  return outlineMoveOf[move];
}

export function toRangeRequest(range: searchV1.ReadRangeRequest["range"]): RangeRequest | undefined {
  switch (range.case) {
    case "chars":
      return { kind: "chars", start: range.value.start, end: range.value.end };
    case "lines":
      return { kind: "lines", start: range.value.start, end: range.value.end };
    case "nodeId":
      return { kind: "node", nodeId: range.value };
    case undefined:
      return undefined;
  }
}

export function toSearchHitMessage(hit: SearchHitResult): MessageInitShape<typeof searchV1.SearchHitSchema> {
  return {
    ...(hit.entry === undefined ? {} : { entry: toEntryMessage(hit.entry) }),
    entryId: hit.entryId,
    score: hit.score,
    rank: hit.rank,
    ...(hit.chunk === undefined ? {} : { chunk: hit.chunk }),
    highlights: hit.highlights,
  };
}

export function toReadRangeResponse(
  result: ReadRangeResult,
): MessageInitShape<typeof searchV1.ReadRangeResponseSchema> {
  return {
    ...result,
    trustState: result.trustState === undefined ? storeV1.TrustState.UNSPECIFIED : trustStateToProto(result.trustState),
  };
}

export function toGrepResponse(result: GrepResult): MessageInitShape<typeof searchV1.GrepResponseSchema> {
  return {
    entries: result.entries.map((entry) => ({
      entryId: entry.entryId,
      threadId: entry.threadId,
      matchCount: entry.matchCount,
      timedOut: entry.timedOut,
      trustState: trustStateToProto(entry.trustState),
      matches: entry.matches.map((match) => ({
        line: match.line,
        span: match.span,
        lineText: match.lineText,
        before: match.before,
        after: match.after,
      })),
    })),
    entriesScanned: result.entriesScanned,
    totalMatches: result.totalMatches,
    truncated: result.truncated,
    timedOut: result.timedOut,
    warnings: result.warnings,
  };
}
