/**
 * The shared filter set as SQL: the conditions every search leg and listing
 * ANDs with the access predicate, and the relation they read (the live
 * `entries`, or with `as_of` what the store held at that instant).
 */
import { accessPredicate, collectionPredicate, deletedEntryPredicate } from "./access-predicate.js";
import type { SqlParams } from "../db/sql-database.js";
import { isAdmin, type Principal } from "../model/principal.js";
import { memoryMirrorKind } from "../model/entry-kinds.js";
import type { SearchFilter } from "../model/search-filter.js";
import { metadataConditionSql } from "./metadata-condition-sql.js";
import { trustFilter } from "./trust-filter.js";

const aliasPattern = /^[a-z_][a-z0-9_]{0,30}$/;

/**
 * The filter as SQL conditions over the `entries` row aliased `alias` (or a
 * row of `entrySource`), to be ANDed with the access predicate in the same
 * WHERE clause, so every filter applies before any ORDER BY or LIMIT: the
 * trust filter (quarantined and rejected entries only with
 * `includeQuarantined`) and valid time included. A collection filter
 * matches members of that collection only when `principal` can see the
 * collection, so a hidden collection and a missing one both match nothing.
 * Values travel only as parameters.
 */
export function searchFilterConditions(
  principal: Principal,
  filter: SearchFilter,
  alias: string,
  params: SqlParams,
): string[] {
  if (!aliasPattern.test(alias)) throw new Error(`filter alias ${JSON.stringify(alias)} is not a plain identifier`);
  const conditions: string[] = [];
  if (filter.threadId !== undefined) conditions.push(`${alias}.thread_id = ${params.add(filter.threadId)}`);
  if (filter.source !== undefined) conditions.push(`${alias}.source = ${params.add(filter.source)}`);
  if (filter.tagsAny.length > 0) conditions.push(`${alias}.tags && ${params.add(filter.tagsAny)}::text[]`);
  if (filter.tagsAll.length > 0) conditions.push(`${alias}.tags @> ${params.add(filter.tagsAll)}::text[]`);
  for (const condition of filter.metadata) conditions.push(metadataConditionSql(alias, condition, params));
  if (filter.createdFrom !== undefined)
    conditions.push(`${alias}.created_at >= ${params.add(filter.createdFrom.toISOString())}::timestamptz`);
  if (filter.createdTo !== undefined)
    conditions.push(`${alias}.created_at < ${params.add(filter.createdTo.toISOString())}::timestamptz`);
  if (filter.contentType !== undefined) conditions.push(`${alias}.content_type = ${params.add(filter.contentType)}`);
  if (filter.kinds.length > 0) conditions.push(`${alias}.kind = ANY(${params.add(filter.kinds)}::text[])`);
  // By kind, not memory_id: an as_of relation has no memory_id, and only the store writes the reserved kind.
  if (filter.excludeMemoryMirrors) conditions.push(`${alias}.kind <> ${params.add(memoryMirrorKind)}`);
  // starts_with on lower(): the prefix is a value, never a pattern, so % and _ in it match themselves.
  if (filter.titlePrefix !== undefined)
    conditions.push(`starts_with(lower(${alias}.title), lower(${params.add(filter.titlePrefix)}::text))`);
  if (filter.promptName !== undefined) conditions.push(`${alias}.prompt_name = ${params.add(filter.promptName)}::text`);
  if (filter.ownOnly) conditions.push(`${alias}.owner = ${params.add(principal.subject)}::text`);
  if (filter.collectionId !== undefined) {
    conditions.push(
      `EXISTS (SELECT 1 FROM collection_members cm JOIN collections cc ON cc.id = cm.collection_id
         WHERE cm.collection_id = ${params.add(filter.collectionId)}::uuid AND cm.entry_id = ${alias}.id AND ${collectionPredicate(principal, "cc", params)})`,
    );
  }
  if (filter.validAt !== undefined) conditions.push(validAtCondition(alias, filter.validAt, params));
  conditions.push(trustFilter(alias, filter.includeQuarantined));
  return conditions;
}

/**
 * Whether the row's valid-time interval holds at `at`: valid_from ≤ at <
 * valid_to, a NULL end open. Written as range containment so the GiST index
 * on `tstzrange(valid_from, valid_to)` serves it.
 */
export function validAtCondition(alias: string, at: Date, params: SqlParams): string {
  if (!aliasPattern.test(alias)) throw new Error(`filter alias ${JSON.stringify(alias)} is not a plain identifier`);
  return `tstzrange(${alias}.valid_from, ${alias}.valid_to) @> ${params.add(at.toISOString())}::timestamptz`;
}

/** Characters of an earlier version's text a listing reads to make its preview (see toPreview). */
export const previewSourceChars = 1_200;

/**
 * The listing column that carries an earlier version's preview source:
 * `preview` is NULL on such a row (previews are stored for the current
 * version only) and the reader makes it from this head of the text with
 * `toPreview`. On the live table it is always NULL.
 */
export function previewSourceColumn(filter: Pick<SearchFilter, "asOf">, alias: string): string {
  if (!aliasPattern.test(alias)) throw new Error(`filter alias ${JSON.stringify(alias)} is not a plain identifier`);
  return filter.asOf === undefined ? "NULL::text AS preview_source" : `${alias}.preview_source`;
}

/**
 * The relation a search or listing reads, to be aliased by the caller
 * (`FROM ${entrySource(...)} e`): the live `entries` table, or with `as_of`
 * what the store held at that instant (transaction time), with the columns
 * every read of `entries` uses.
 *
 * An entry's version at instant t is its first kept version superseded after
 * t (each version was current from the previous one's supersession until its
 * own), else its current row; entries created after t are absent. Deleted
 * entries come back from their kept versions while those exist (purge erases
 * them, and the entry is gone from every as_of).
 *
 * Access is decided as of now, never as of then: a live entry needs the
 * access predicate on its current row (a version that was private while
 * current is further left to its owner and admins, as the history tools
 * redact it); a deleted entry only its owner sees, as with its history. The
 * caller still ANDs the access predicate over the result, which these rows
 * satisfy by construction. The trust state reported is the version's, unless
 * the entry is quarantined or rejected now, which wins: what a reviewer
 * withholds today stays withheld in the past too.
 *
 * `search_vector` and `search_length` are the version's stored ones (kept versions store theirs
 * beside their text). Given `matching` (the SQL of a tsquery), the relation
 * holds only the rows whose vector matches it, and is built so that both GIN
 * indexes find them: the live entries unchanged since t, and the kept
 * versions current at t (of live or deleted entries), each looked up by its
 * vector and then checked to be the one current at t. Without it, the
 * relation walks the caller's entries and finds each one's version at t by
 * the (entry_id, superseded_at) index: a scan, for listings and grep. Given
 * `ids` (the SQL of a set of entry ids, such as a CTE's page), it walks only
 * those entries.
 */
export function entrySource(
  principal: Principal,
  filter: Pick<SearchFilter, "asOf">,
  params: SqlParams,
  narrow: { matching?: string; ids?: string } = {},
): string {
  if (filter.asOf === undefined) return "entries";
  const { matching, ids } = narrow;
  const among = (column: string) => (ids === undefined ? "" : ` AND ${column} IN ${ids}`);
  const at = `${params.add(filter.asOf.toISOString())}::timestamptz`;
  const withheldNow = `NOT (${trustFilter("c", false)})`;
  /**
   * The live entry `c` as it was at t, as read from the current row or from
   * kept version `v`; `pick` chooses between the two expressions of a column.
   */
  const liveColumns = (pick: (current: string, kept: string) => string) => `
    c.id, c.tenant, c.thread_id, c.source, c.owner, c.visibility,
      ${pick("c.text", "v.text")} AS text,
      ${pick("c.preview", "NULL::text")} AS preview,
      ${pick("NULL::text", `left(v.text, ${previewSourceChars})`)} AS preview_source,
      ${pick("c.text_length", "length(v.text)")} AS text_length,
      ${pick("c.content_hash", "v.content_hash")} AS content_hash,
      ${pick("c.metadata", "v.metadata")} AS metadata,
      ${pick("c.tags", "v.tags")} AS tags,
      ${pick("c.summary", "v.summary")} AS summary,
      ${pick("c.content_type", "coalesce(v.content_type, c.content_type)")} AS content_type,
      ${pick("c.version", "v.version")} AS version,
      c.created_at,
      ${pick("c.updated_at", "v.written_at")} AS updated_at,
      ${pick("c.trust_state", `CASE WHEN ${withheldNow} THEN c.trust_state ELSE v.trust_state END`)} AS trust_state,
      ${pick("c.trust_reasons", `CASE WHEN ${withheldNow} THEN c.trust_reasons ELSE '{}'::text[] END`)} AS trust_reasons,
      ${pick("c.reviewed_by", "NULL::text")} AS reviewed_by,
      ${pick("c.reviewed_at", "NULL::timestamptz")} AS reviewed_at,
      ${pick("c.review_note", "NULL::text")} AS review_note,
      ${pick("coalesce(c.updated_by, c.owner)", "v.written_by")} AS updated_by,
      ${pick("c.valid_from", "v.valid_from")} AS valid_from,
      ${pick("c.valid_to", "v.valid_to")} AS valid_to,
      ${pick("c.kind", "v.kind")} AS kind,
      ${pick("c.title", "v.title")} AS title,
      ${pick("c.prompt_arguments", "v.prompt_arguments")} AS prompt_arguments,
      ${pick("c.prompt_name", "v.prompt_name")} AS prompt_name,
      ${pick("c.search_vector", "v.search_vector")} AS search_vector,
      ${pick("c.search_length", "v.search_length")} AS search_length`;
  const deletedColumns = `
    t.id, t.tenant, t.thread_id, t.source, t.owner, v.visibility, v.text, NULL::text AS preview,
      left(v.text, ${previewSourceChars}) AS preview_source, length(v.text) AS text_length, v.content_hash, v.metadata, v.tags, v.summary,
      coalesce(v.content_type, 'text') AS content_type, v.version, t.created_at, v.written_at AS updated_at, v.trust_state, '{}'::text[] AS trust_reasons,
      NULL::text AS reviewed_by, NULL::timestamptz AS reviewed_at, NULL::text AS review_note, v.written_by AS updated_by,
      v.valid_from, v.valid_to, v.kind, v.title, v.prompt_arguments, v.prompt_name, v.search_vector, v.search_length`;
  const liveThen = `${accessPredicate(principal, "c", params)} AND c.created_at <= ${at}${among("c.id")}`;
  // A version that was private while current stays its owner's (and admins').
  const keptReadable = `(v.visibility <> 'private' OR c.owner = ${params.add(principal.subject)} OR ${params.add(isAdmin(principal))}::boolean)`;
  const deletedThen = `${deletedEntryPredicate(principal, "t", params)} AND t.created_at <= ${at}${among("t.id")}`;

  if (matching === undefined) {
    const versionAt = (alias: string) =>
      `(SELECT v.* FROM entry_versions v WHERE v.entry_id = ${alias}.id AND v.superseded_at > ${at} ORDER BY v.version LIMIT 1)`;
    const then = (current: string, kept: string) => `CASE WHEN v.entry_id IS NULL THEN ${current} ELSE ${kept} END`;
    return `(
    SELECT ${liveColumns(then)}
    FROM entries c LEFT JOIN LATERAL ${versionAt("c")} v ON true
    WHERE ${liveThen} AND (v.entry_id IS NULL OR ${keptReadable})
    UNION ALL
    SELECT ${deletedColumns}
    FROM tombstones t JOIN LATERAL ${versionAt("t")} v ON true
    WHERE ${deletedThen})`;
  }

  // The first kept version superseded after t, as a condition on `v` (the same row versionAt picks).
  const currentAt = `v.superseded_at > ${at} AND NOT EXISTS (SELECT 1 FROM entry_versions w WHERE w.entry_id = v.entry_id AND w.superseded_at > ${at} AND w.version < v.version)`;
  return `(
    SELECT ${liveColumns((current) => current)}
    FROM entries c
    WHERE c.search_vector @@ ${matching} AND ${liveThen}
      AND NOT EXISTS (SELECT 1 FROM entry_versions w WHERE w.entry_id = c.id AND w.superseded_at > ${at})
    UNION ALL
    SELECT ${liveColumns((_current, kept) => kept)}
    FROM entry_versions v JOIN entries c ON c.id = v.entry_id
    WHERE v.search_vector @@ ${matching} AND ${currentAt} AND ${liveThen} AND ${keptReadable}
    UNION ALL
    SELECT ${deletedColumns}
    FROM entry_versions v JOIN tombstones t ON t.id = v.entry_id
    WHERE v.search_vector @@ ${matching} AND ${currentAt} AND ${deletedThen})`;
}
