import type { MetadataOperator } from "@context-hub/common";
import { fromJson, type JsonValue, type MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate, ValueSchema } from "@bufbuild/protobuf/wkt";
import { commonV1, storeV1 } from "@context-hub/proto";
import { toProtoSource } from "./proto-enums.js";

/** The filter arguments every search tool, grep_context and search_context share (see searchFilterFields). */
export interface SearchFilterArgs {
  thread_id?: string | undefined;
  source?: "user" | "agent" | undefined;
  tags?: string[] | undefined;
  tags_all?: string[] | undefined;
  metadata?: Record<string, string | number | boolean | null> | undefined;
  metadata_filters?:
    | { key: string; operator?: OperatorName | undefined; value?: unknown; case_sensitive?: boolean | undefined }[]
    | undefined;
  start_date?: string | undefined;
  end_date?: string | undefined;
  content_type?: "text" | "multimodal" | undefined;
  include_quarantined?: boolean | undefined;
  valid_at?: string | undefined;
  as_of?: string | undefined;
  kind?: string | string[] | undefined;
  title_prefix?: string | undefined;
  collection_id?: string | undefined;
  /** Not a tool argument: start_here sets it to leave the memories' mirror entries out of its entries. */
  exclude_memory_mirrors?: boolean | undefined;
  /** Not a tool argument: prompts/get sets it to find the caller's own prompt of a name. */
  prompt_name?: string | undefined;
  /** Not a tool argument: only the caller's own entries. */
  own_only?: boolean | undefined;
}

type OperatorName = MetadataOperator;

const operatorOf: Record<OperatorName, storeV1.MetadataOperator> = {
  eq: storeV1.MetadataOperator.EQ,
  ne: storeV1.MetadataOperator.NE,
  gt: storeV1.MetadataOperator.GT,
  gte: storeV1.MetadataOperator.GTE,
  lt: storeV1.MetadataOperator.LT,
  lte: storeV1.MetadataOperator.LTE,
  in: storeV1.MetadataOperator.IN,
  not_in: storeV1.MetadataOperator.NOT_IN,
  exists: storeV1.MetadataOperator.EXISTS,
  contains: storeV1.MetadataOperator.CONTAINS,
  starts_with: storeV1.MetadataOperator.STARTS_WITH,
  not_exists: storeV1.MetadataOperator.NOT_EXISTS,
  ends_with: storeV1.MetadataOperator.ENDS_WITH,
  is_null: storeV1.MetadataOperator.IS_NULL,
  is_not_null: storeV1.MetadataOperator.IS_NOT_NULL,
  array_contains: storeV1.MetadataOperator.ARRAY_CONTAINS,
};

/**
 * The metadata conditions of the filter arguments: `metadata` equalities
 * first, then `metadata_filters` (operator left out: eq). A value left out
 * (or null for an operator that takes none) is not sent, so the store tells
 * "no value" from a JSON null.
 */
function toMetadataConditions(args: SearchFilterArgs): MessageInitShape<typeof storeV1.MetadataConditionSchema>[] {
  const equalities = Object.entries(args.metadata ?? {}).map(([key, value]) => ({
    key,
    operator: storeV1.MetadataOperator.EQ,
    value: fromJson(ValueSchema, value),
  }));
  const conditions = (args.metadata_filters ?? []).map((condition) => {
    const operator = condition.operator ?? "eq";
    const valueless =
      condition.value === undefined ||
      (condition.value === null && ["exists", "not_exists", "is_null", "is_not_null"].includes(operator));
    return {
      key: condition.key,
      operator: operatorOf[operator],
      ...(valueless ? {} : { value: fromJson(ValueSchema, condition.value as JsonValue) }),
      ...(condition.case_sensitive === undefined ? {} : { caseSensitive: condition.case_sensitive }),
    };
  });
  return [...equalities, ...conditions];
}

/**
 * The store's filter for a tool's filter arguments, the one filter message
 * every listing and search takes: `metadata` equalities become `eq`
 * conditions beside `metadata_filters`.
 */
export function toEntryFilter(args: SearchFilterArgs): MessageInitShape<typeof storeV1.EntryFilterSchema> {
  return {
    threadId: args.thread_id ?? "",
    source: args.source === undefined ? commonV1.Source.UNSPECIFIED : toProtoSource(args.source),
    tagsAny: args.tags ?? [],
    tagsAll: args.tags_all ?? [],
    metadata: toMetadataConditions(args),
    ...(args.start_date === undefined ? {} : { createdFrom: timestampFromDate(new Date(args.start_date)) }),
    ...(args.end_date === undefined ? {} : { createdTo: timestampFromDate(new Date(args.end_date)) }),
    contentType: args.content_type ?? "",
    includeQuarantined: args.include_quarantined ?? false,
    ...(args.valid_at === undefined ? {} : { validAt: timestampFromDate(new Date(args.valid_at)) }),
    ...(args.as_of === undefined ? {} : { asOf: timestampFromDate(new Date(args.as_of)) }),
    kinds: args.kind === undefined ? [] : typeof args.kind === "string" ? [args.kind] : args.kind,
    titlePrefix: args.title_prefix ?? "",
    collectionId: args.collection_id?.toLowerCase() ?? "",
    excludeMemoryMirrors: args.exclude_memory_mirrors ?? false,
    promptName: args.prompt_name ?? "",
    ownOnly: args.own_only ?? false,
  };
}
