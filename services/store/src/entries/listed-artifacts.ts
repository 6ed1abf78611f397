/**
 * The artifacts the entries of a listed page link (list_context, a search's
 * hits and listings, a collection's members, the review queue), as a by-id
 * read shows them: one statement per page, never one per entry, under the
 * listing's access rules (the access predicate over the relation the page was
 * read from, in the listing's mode — review for the review queue — and as of
 * the same instant with `as_of`), so an entry the caller may not see, or no
 * longer sees, shows none. Read as of an earlier instant, an entry shows the
 * links of its version current then (those its kept version stored); its
 * current version shows the live links.
 */
import { createSqlParams, type SqlExecutor } from "../db/sql-database.js";
import { accessPredicate, type AccessMode } from "../filters/access-predicate.js";
import { entrySource } from "../filters/search-filter-sql.js";
import type { StoredEntry } from "../model/entry-model.js";
import type { Principal } from "../model/principal.js";
import type { SearchFilter } from "../model/search-filter.js";
import { linkedArtifactsOrNull } from "./write-scope/entry-artifact-links.js";

/**
 * The artifacts (sorted) each entry among `ids` that `principal` may see
 * (in `mode`: the review queue's entries are those review mode opens) links;
 * entries without any are absent.
 */
export async function linkedArtifactsOf(
  executor: SqlExecutor,
  principal: Principal,
  ids: readonly string[],
  filter: Pick<SearchFilter, "asOf"> = { asOf: undefined },
  mode: Extract<AccessMode, "read" | "review"> = "read",
): Promise<Map<string, string[]>> {
  const distinct = [...new Set(ids)];
  if (distinct.length === 0) return new Map();
  const params = createSqlParams();
  const idList = params.add(distinct);
  const statement =
    filter.asOf === undefined
      ? `SELECT e.id, ${linkedArtifactsOrNull("e")} AS artifacts FROM entries e
         WHERE e.id = ANY(${idList}::uuid[]) AND ${accessPredicate(principal, "e", params, mode)}`
      : // A row of the relation that is a kept version (its number is in entry_versions) shows that version's links.
        `SELECT e.id, CASE WHEN k.entry_id IS NULL THEN ${linkedArtifactsOrNull("e")} ELSE k.artifacts END AS artifacts
         FROM ${entrySource(principal, filter, params, { ids: `(SELECT unnest(${idList}::uuid[]))` })} e
           LEFT JOIN entry_versions k ON k.entry_id = e.id AND k.version = e.version
         WHERE ${accessPredicate(principal, "e", params, mode)}`;
  const { rows } = await executor.query<{ id: string; artifacts: string[] | null }>(statement, params.values);
  return new Map(rows.flatMap((row) => (row.artifacts === null ? [] : [[row.id, row.artifacts] as const])));
}

/** `entries` with the artifacts each links (see linkedArtifactsOf), read in one statement. */
export async function withLinkedArtifacts<T extends StoredEntry>(
  executor: SqlExecutor,
  principal: Principal,
  entries: readonly T[],
  filter: Pick<SearchFilter, "asOf"> = { asOf: undefined },
): Promise<T[]> {
  const links = await linkedArtifactsOf(
    executor,
    principal,
    entries.map((entry) => entry.id),
    filter,
  );
  return entries.map((entry) => ({ ...entry, artifacts: links.get(entry.id) ?? [] }));
}
