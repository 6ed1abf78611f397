/**
 * The search repository's reads besides full-text ranking: listings and
 * visibility of ranked ids, passages' texts, grep's candidates and texts,
 * settings and what the store was embedded with.
 */
import { accessPredicate } from "../filters/access-predicate.js";
import { createSqlParams, type SqlDatabase, type SqlParams } from "../db/sql-database.js";
import type { StoredEntry } from "../model/entry-model.js";
import { toStoredEntry, type EntryRow } from "../entries/entry-rows.js";
import type { Principal } from "../model/principal.js";
import type { SearchFilter } from "../model/search-filter.js";
import { entrySource, searchFilterConditions } from "../filters/search-filter-sql.js";
import { trustFilter } from "../filters/trust-filter.js";
import { tsquerySql } from "./bm25-sql.js";
import { listingColumns } from "./full-text-statement.js";
import type { TrustState } from "../model/trust.js";
import type { SearchRepository } from "./search-ports.js";

/** An entry row as a listing selects it: no text or by-id extras, and always the preview source column. */
export type ListingRow = Omit<
  EntryRow,
  "text" | "node_summaries" | "chunk_count" | "embedding_model" | "preview_source"
> & {
  /** An earlier version's head of text, when `preview` is NULL (see previewSourceColumn). */
  preview_source: string | null;
};

const live: Pick<SearchFilter, "asOf"> = { asOf: undefined };

/** A listed entry: the shared row mapping, with no text, image bytes or node summaries. */
export function toListing(row: ListingRow): StoredEntry {
  return toStoredEntry(row, undefined);
}

/** The conditions under which an entry among `ids` is visible and passes `filter` (now, whatever its `asOf`). */
const visibleConditions = (principal: Principal, ids: readonly string[], filter: SearchFilter, params: SqlParams) =>
  [
    `e.id = ANY(${params.add(ids)}::uuid[])`,
    accessPredicate(principal, "e", params),
    ...searchFilterConditions(principal, { ...filter, asOf: undefined }, "e", params),
  ].join(" AND ");

/** The ids among `ids` visible to `principal` that pass `filter` (visibleConditions). */
export const visibleAmong = async (
  db: SqlDatabase,
  principal: Principal,
  ids: readonly string[],
  filter: SearchFilter,
) => {
  if (ids.length === 0) return new Set<string>();
  const params = createSqlParams();
  const { rows } = await db.query<{ id: string }>(
    `SELECT e.id FROM entries e WHERE ${visibleConditions(principal, ids, filter, params)}`,
    params.values,
  );
  return new Set(rows.map((row) => row.id));
};

/** Grep's reads over `db`: the candidates a filter passes, newest first from a cursor, and their texts. */
function createGrepReads(db: SqlDatabase): Pick<SearchRepository, "grepCandidates" | "grepTexts"> {
  return {
    async grepCandidates(principal, filter, literal, cursor, limit) {
      const params = createSqlParams();
      const conditions = [
        accessPredicate(principal, "e", params),
        ...searchFilterConditions(principal, filter, "e", params),
      ];
      if (literal !== undefined) conditions.push(`strpos(e.text, ${params.add(literal)}) > 0`);
      if (cursor !== undefined)
        conditions.push(
          `(e.created_at, e.id) < (${params.add(cursor.createdAt.toISOString())}::timestamptz, ${params.add(cursor.id)}::uuid)`,
        );
      const { rows } = await db.query<{
        id: string;
        thread_id: string;
        created_at: Date;
        text_length: number;
        trust_state: TrustState;
      }>(
        `SELECT e.id, e.thread_id, e.created_at, e.text_length, e.trust_state FROM ${entrySource(principal, filter, params)} e
         WHERE ${conditions.join(" AND ")}
         ORDER BY e.created_at DESC, e.id DESC
         LIMIT ${params.add(limit)}`,
        params.values,
      );
      return rows.map((row) => ({
        id: row.id,
        threadId: row.thread_id,
        createdAt: row.created_at,
        textLength: Number(row.text_length),
        trustState: row.trust_state,
      }));
    },

    async grepTexts(principal, filter, ids) {
      if (ids.length === 0) return new Map();
      const params = createSqlParams();
      const conditions = [
        accessPredicate(principal, "e", params),
        ...searchFilterConditions(principal, filter, "e", params),
        `e.id = ANY(${params.add(ids)}::uuid[])`,
      ];
      const { rows } = await db.query<{ id: string; text: string }>(
        `SELECT e.id, e.text FROM ${entrySource(principal, filter, params)} e WHERE ${conditions.join(" AND ")}`,
        params.values,
      );
      return new Map(rows.map((row) => [row.id, row.text]));
    },
  };
}

/** Every method of SearchRepository but the full-text rankings, over `db`. */
export function createSearchReads(db: SqlDatabase): Omit<SearchRepository, "fullText" | "fullTextWithFeedback"> {
  return {
    ...createGrepReads(db),

    async isEmptyQuery(query) {
      const params = createSqlParams();
      const { rows } = await db.query<{ nodes: number }>(
        `SELECT numnode(${tsquerySql(query, params)}) AS nodes`,
        params.values,
      );
      return (rows[0]?.nodes ?? 0) === 0;
    },

    async listings(principal, ids, filter) {
      if (ids.length === 0) return [];
      const params = createSqlParams();
      const { rows } = await db.query<ListingRow>(
        `SELECT ${listingColumns(live)} FROM entries e WHERE ${visibleConditions(principal, ids, filter, params)}`,
        params.values,
      );
      return rows.map(toListing);
    },

    async visibleIds(principal, ids, filter) {
      return visibleAmong(db, principal, ids, filter);
    },

    async texts(principal, items) {
      if (items.length === 0) return new Map();
      const params = createSqlParams();
      // left() counts code points, which are never fewer than the UTF-16 units asked for, so the slice covers them.
      const { rows } = await db.query<{ id: string; text: string }>(
        `SELECT e.id, left(e.text, w.chars) AS text
         FROM unnest(${params.add(items.map((item) => item.id))}::uuid[], ${params.add(items.map((item) => item.chars))}::integer[]) AS w (id, chars)
         JOIN entries e ON e.id = w.id
         WHERE ${accessPredicate(principal, "e", params)} AND ${trustFilter("e", false)}`,
        params.values,
      );
      return new Map(rows.map((row) => [row.id, row.text]));
    },

    async setting(key) {
      const { rows } = await db.query<{ value: string }>("SELECT value FROM search_settings WHERE key = $1", [key]);
      return rows[0]?.value;
    },

    async embeddedByOtherModels(principal, model, dimension) {
      const params = createSqlParams();
      const visible = accessPredicate(principal, "e", params);
      const dimensionOf = db.vectorType === "pgvector" ? "vector_dims(c.embedding)" : "cardinality(c.embedding)";
      const space = `c.embedding_model = ${params.add(model)} AND ${dimensionOf} = ${params.add(dimension)}::integer`;
      const { rows } = await db.query<{ this_space: boolean; other_space: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM chunks c JOIN entries e ON e.id = c.entry_id WHERE ${visible} AND ${space}) AS this_space,
                EXISTS (SELECT 1 FROM chunks c JOIN entries e ON e.id = c.entry_id WHERE ${visible} AND NOT (${space})) AS other_space`,
        params.values,
      );
      return rows[0]?.this_space === false && rows[0]?.other_space === true;
    },

    async builtinLanguages() {
      const { rows } = await db.query<{ name: string }>(
        "SELECT cfgname AS name FROM pg_ts_config WHERE cfgnamespace = 'pg_catalog'::regnamespace ORDER BY cfgname",
      );
      return rows.map((row) => row.name);
    },
  };
}
