/**
 * Conversions between SearchService protobuf messages and the search domain,
 * for the transport (search-server.ts). Enum values this build does not know
 * are INVALID_ARGUMENT naming the field.
 */
import { toJson, type MessageInitShape } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import { invalidArgument } from "@context-hub/common";
import { searchV1, storeV1 } from "@context-hub/proto";
import type { JsonValue } from "./entries.js";
import type { GrepOutputMode } from "./grep.js";
import { toDate, toEntryMessage, toSource } from "./messages.js";
import type { RangeRequest } from "./navigation.js";
import type { GrepResult, SearchHitResult } from "./search.js";
import type { MetadataOperator, SearchFilterInput } from "./search-filter.js";
import type { FullTextMode } from "./text-search.js";

const operatorOf: Record<number, MetadataOperator> = {
  [storeV1.MetadataOperator.UNSPECIFIED]: "eq",
  [storeV1.MetadataOperator.EQ]: "eq",
  [storeV1.MetadataOperator.NE]: "ne",
  [storeV1.MetadataOperator.GT]: "gt",
  [storeV1.MetadataOperator.GTE]: "gte",
  [storeV1.MetadataOperator.LT]: "lt",
  [storeV1.MetadataOperator.LTE]: "lte",
  [storeV1.MetadataOperator.IN]: "in",
  [storeV1.MetadataOperator.NOT_IN]: "not_in",
  [storeV1.MetadataOperator.EXISTS]: "exists",
  [storeV1.MetadataOperator.CONTAINS]: "contains",
  [storeV1.MetadataOperator.STARTS_WITH]: "starts_with",
};

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

export function toSearchFilter(filter: searchV1.SearchFilter | undefined): SearchFilterInput | undefined {
  if (filter === undefined) return undefined;
  return {
    threadId: filter.threadId,
    source: toSource(filter.source, "filter.source"),
    tagsAny: filter.tagsAny,
    tagsAll: filter.tagsAll,
    metadata: filter.metadata.map((condition, index) => {
      let value: JsonValue | undefined;
      if (condition.value !== undefined) {
        try {
          value = toJson(ValueSchema, condition.value) as JsonValue;
        } catch {
          throw invalidArgument(`filter.metadata[${index}].value holds no JSON value`);
        }
      }
      return { key: condition.key, operator: known(operatorOf, condition.operator, `filter.metadata[${index}].operator`), value };
    }),
    createdFrom: toDate(filter.createdFrom),
    createdTo: toDate(filter.createdTo),
    contentType: filter.contentType,
  };
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
    entry: toEntryMessage(hit.entry),
    score: hit.score,
    rank: hit.rank,
    ...(hit.chunk === undefined ? {} : { chunk: hit.chunk }),
    highlights: hit.highlights,
  };
}

export function toGrepResponse(result: GrepResult): MessageInitShape<typeof searchV1.GrepResponseSchema> {
  return {
    entries: result.entries.map((entry) => ({
      entryId: entry.entryId,
      threadId: entry.threadId,
      matchCount: entry.matchCount,
      timedOut: entry.timedOut,
      matches: entry.matches.map((match) => ({ line: match.line, span: match.span, lineText: match.lineText, before: match.before, after: match.after })),
    })),
    entriesScanned: result.entriesScanned,
    totalMatches: result.totalMatches,
    truncated: result.truncated,
    timedOut: result.timedOut,
    warnings: result.warnings,
  };
}
