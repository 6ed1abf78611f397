/**
 * The filter set every search and listing shares (full text, semantic,
 * hybrid legs, grep and search_context's listing): thread, source, tags (any
 * of / all of), metadata conditions with operators (metadata-condition.ts), a creation-time range,
 * the content type, the entry's kinds, a title prefix and a prompt name, the caller's own entries only, membership of a collection, leaving out the
 * memories' mirrors, the trust states to include, valid time (`valid_at`) and transaction time (`as_of`). What a valid filter is, and the checks that
 * make it one. No SQL here (see search-filter-sql.ts).
 */
import { invalidArgument } from "@context-hub/common";
import type { ContentType, Source } from "./entry-values.js";
import { limits as entryLimits, normaliseTags, validateThreadId } from "./field-validation.js";
import { validateKindFilter, validateTitlePrefix } from "./entry-kinds.js";
import { validateCollectionId } from "./collection-id.js";
import { validatePromptName } from "./prompt-name.js";
import {
  validateMetadataCondition,
  type MetadataCondition,
  type MetadataConditionInput,
} from "./metadata-condition.js";

export {
  maxListValues,
  metadataOperators,
  type MetadataCondition,
  type MetadataOperator,
} from "./metadata-condition.js";

/** A validated search filter; absent fields do not filter. */
export interface SearchFilter {
  threadId: string | undefined;
  source: Source | undefined;
  /** At least one of these tags (normalised as on write). */
  tagsAny: string[];
  /** Every one of these tags. */
  tagsAll: string[];
  metadata: MetadataCondition[];
  /** created_from ≤ created_at < created_to. */
  createdFrom: Date | undefined;
  createdTo: Date | undefined;
  contentType: ContentType | undefined;
  /** Entries of any of these kinds (none: every kind). */
  kinds: string[];
  /** Entries whose title starts with this, ignoring case (an entry without a title never matches). */
  titlePrefix: string | undefined;
  /** Prompts with exactly this name (case-sensitive). */
  promptName: string | undefined;
  /** Only the entries the caller owns. */
  ownOnly: boolean;
  /** Members of this collection, if the caller can see it (else nothing matches). */
  collectionId: string | undefined;
  /** Leave out the memories' mirror entries (kind `memory`): a listing that shows the memories themselves. */
  excludeMemoryMirrors: boolean;
  /** Include quarantined and rejected entries (the trust filter leaves them out otherwise). */
  includeQuarantined: boolean;
  /** Only entries whose valid-time interval holds at this instant (valid_from ≤ t < valid_to, open ends unbounded). */
  validAt: Date | undefined;
  /** Search what the store held at this instant (transaction time): each entry as its version current then. */
  asOf: Date | undefined;
}

/** A search filter as a caller submits it (before validation). */
export interface SearchFilterInput {
  threadId: string;
  source: Source | undefined;
  tagsAny: readonly string[];
  tagsAll: readonly string[];
  metadata: readonly MetadataConditionInput[];
  createdFrom: Date | undefined;
  createdTo: Date | undefined;
  contentType: string;
  kinds?: readonly string[] | undefined;
  titlePrefix?: string | undefined;
  promptName?: string | undefined;
  ownOnly?: boolean | undefined;
  collectionId?: string | undefined;
  excludeMemoryMirrors?: boolean | undefined;
  includeQuarantined?: boolean | undefined;
  validAt?: Date | undefined;
  asOf?: Date | undefined;
}

/** The filter that filters nothing. */
export const emptySearchFilter: SearchFilter = Object.freeze({
  threadId: undefined,
  source: undefined,
  tagsAny: [],
  tagsAll: [],
  metadata: [],
  createdFrom: undefined,
  createdTo: undefined,
  contentType: undefined,
  kinds: [],
  titlePrefix: undefined,
  promptName: undefined,
  ownOnly: false,
  collectionId: undefined,
  excludeMemoryMirrors: false,
  includeQuarantined: false,
  validAt: undefined,
  asOf: undefined,
}) as SearchFilter;

function toContentType(value: string): ContentType | undefined {
  if (value === "") return undefined;
  if (value === "text" || value === "multimodal") return value;
  throw invalidArgument(
    `filter.content_type must be "text", "multimodal" or empty (got ${JSON.stringify(value.slice(0, 40))})`,
  );
}

/**
 * Checks and normalises a search filter: tags are normalised as on write so
 * they match, each metadata condition's value must suit its operator (see
 * validateMetadataCondition), at most 20 conditions, and the time range must
 * not be empty.
 */
export function validateSearchFilter(filter: SearchFilterInput | undefined): SearchFilter {
  if (filter === undefined) return emptySearchFilter;
  const threadId = filter.threadId === "" ? undefined : validateThreadId(filter.threadId, "filter.thread_id");
  const tagsAny = normaliseTags(filter.tagsAny, "filter.tags_any");
  const tagsAll = normaliseTags(filter.tagsAll, "filter.tags_all");
  if (filter.metadata.length > entryLimits.metadataConditions) {
    throw invalidArgument(
      `filter.metadata: at most ${entryLimits.metadataConditions} conditions (got ${filter.metadata.length})`,
    );
  }
  const metadata = filter.metadata.map(
    (condition, index): MetadataCondition => validateMetadataCondition(condition, `filter.metadata[${index}]`),
  );
  for (const [name, date] of [
    ["created_from", filter.createdFrom],
    ["created_to", filter.createdTo],
    ["valid_at", filter.validAt],
    ["as_of", filter.asOf],
  ] as const) {
    if (date !== undefined && Number.isNaN(date.getTime())) throw invalidArgument(`filter.${name} is not a valid time`);
  }
  if (filter.createdFrom !== undefined && filter.createdTo !== undefined && filter.createdFrom >= filter.createdTo) {
    throw invalidArgument("filter.created_from must be before filter.created_to");
  }
  return {
    threadId,
    source: filter.source,
    tagsAny,
    tagsAll,
    metadata,
    createdFrom: filter.createdFrom,
    createdTo: filter.createdTo,
    contentType: toContentType(filter.contentType),
    kinds: validateKindFilter(filter.kinds ?? [], "filter.kinds"),
    titlePrefix: validateTitlePrefix(filter.titlePrefix, "filter.title_prefix"),
    promptName: validatePromptName(filter.promptName, "filter.prompt_name", true),
    ownOnly: filter.ownOnly ?? false,
    collectionId:
      (filter.collectionId ?? "") === ""
        ? undefined
        : validateCollectionId(filter.collectionId ?? "", "filter.collection_id"),
    excludeMemoryMirrors: filter.excludeMemoryMirrors ?? false,
    includeQuarantined: filter.includeQuarantined ?? false,
    validAt: filter.validAt,
    asOf: filter.asOf,
  };
}
