import { accessPredicate } from "./access-predicate.js";
import { createSqlParams, type SqlDatabase, type SqlParams } from "./db/sql-database.js";
import type { StoredEntry } from "./entries.js";
import { toEntryTrust, trustColumns, type EntryRow } from "./entry-repository.js";
import { toPreview } from "./preview.js";
import type { Principal } from "./principal.js";
import type { SearchFilter } from "./search-filter.js";
import { entrySource, previewSourceColumn, searchFilterConditions } from "./search-filter-sql.js";
import { trustFilter } from "./trust-filter.js";
import type { TrustState } from "./trust.js";
import { headlineOptions, highlightTextLimit, toLexemeQuery, type FullTextMode } from "./text-search.js";

/** A full-text query as the repository runs it. */
export interface FullTextQuery {
  mode: FullTextMode;
  text: string;
  /** A text-search configuration name already checked against the allow-list. */
  language: string;
}

export interface FullTextRow {
  entry: StoredEntry;
  score: number;
  /** ts_headline output when highlighting was asked for. */
  headline: string | undefined;
}

export interface GrepCandidate {
  id: string;
  threadId: string;
  createdAt: Date;
  /** The length of the text in UTF-16 code units; the text itself is read separately (`grepTexts`), a bounded page at a time. */
  textLength: number;
  /** The state of the text read (under `as_of`, that version's; see entrySource). */
  trustState: TrustState;
}

/** Where a keyset page of grep candidates continues: after this entry in newest-first order. */
export interface GrepCursor {
  createdAt: Date;
  id: string;
}

/**
 * Every SQL statement of search. Each composes the access predicate and the
 * filters (the trust filter and valid time among them) before its limit, and
 * reads what the store held at `filter.asOf` when it is set.
 */
export interface SearchRepository {
  /** One page of the visible, filtered entries matching the query, best ts_rank_cd first (ties: newer first). */
  fullText(principal: Principal, query: FullTextQuery, filter: SearchFilter, page: { limit: number; offset: number }, highlight: boolean): Promise<FullTextRow[]>;
  /** Whether the query reduces to nothing searchable (only stop words or punctuation). */
  isEmptyQuery(query: FullTextQuery): Promise<boolean>;
  /**
   * The visible entries among `ids` that pass `filter` (the trust filter and
   * valid time included; `asOf` is not read here), as listings (preview, no
   * text). Any order. Re-checks a vector index's candidates in the database.
   */
  listings(principal: Principal, ids: readonly string[], filter: SearchFilter): Promise<StoredEntry[]>;
  /** The first `chars` characters of each visible entry's text, by id; quarantined and rejected entries' texts are never handed out here. */
  texts(principal: Principal, items: readonly { id: string; chars: number }[]): Promise<Map<string, string>>;
  /**
   * The next `limit` visible, filtered entries after `cursor`, newest first,
   * with their texts; with `literal`, only those whose text contains it
   * (the caller rechecks, so the test may be looser than the real match).
   */
  grepCandidates(principal: Principal, filter: SearchFilter, literal: string | undefined, cursor: GrepCursor | undefined, limit: number): Promise<GrepCandidate[]>;
  /** The texts of `ids` (candidates `grepCandidates` returned) as the filter reads them, by id, under the same access predicate. */
  grepTexts(principal: Principal, filter: SearchFilter, ids: readonly string[]): Promise<Map<string, string>>;
  /** A value of `search_settings`. */
  setting(key: string): Promise<string | undefined>;
  /**
   * Whether the caller can see chunks embedded by other models (or at other
   * dimensions) and none by this one: the store was embedded by another
   * model than the query's. Judged over the entries the caller may see only,
   * so it says nothing about anyone else's (invariant I-2).
   */
  embeddedByOtherModels(principal: Principal, model: string, dimension: number): Promise<boolean>;
  /** The text-search configurations the database ships (pg_catalog). */
  builtinLanguages(): Promise<string[]>;
}

/** An entry row as a listing selects it: no text or by-id extras, and always the preview source column. */
type ListingRow = Omit<EntryRow, "text" | "node_summaries" | "chunk_count" | "embedding_model" | "preview_source"> & {
  /** An earlier version's head of text, when `preview` is NULL (see previewSourceColumn). */
  preview_source: string | null;
};

/** The listing columns of the row aliased `e` (a live entry, or one of `entrySource`'s rows under the same filter). */
function listingColumns(filter: Pick<SearchFilter, "asOf">): string {
  return `e.id, e.thread_id, e.source, e.owner, e.visibility, e.preview, e.text_length, e.content_hash, e.metadata, e.tags,
  e.summary, e.content_type, e.version, e.created_at, e.updated_at, e.valid_from, e.valid_to, ${trustColumns}, ${previewSourceColumn(filter, "e")},
  coalesce((SELECT json_agg(json_build_object('ordinal', i.ordinal, 'mimeType', i.mime_type, 'byteSize', i.byte_size) ORDER BY i.ordinal)
    FROM entry_images i WHERE i.entry_id = e.id), '[]'::json) AS images`;
}

const live: Pick<SearchFilter, "asOf"> = { asOf: undefined };

function toListing(row: ListingRow): StoredEntry {
  return {
    id: row.id,
    threadId: row.thread_id,
    source: row.source,
    owner: row.owner,
    visibility: row.visibility,
    text: "",
    preview: row.preview ?? toPreview(row.preview_source ?? ""),
    textLength: row.text_length,
    contentHash: row.content_hash,
    metadata: row.metadata,
    tags: row.tags,
    summary: row.summary,
    version: row.version,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    images: row.images.map((image) => ({ ordinal: image.ordinal, mimeType: image.mimeType, byteSize: image.byteSize, data: undefined })),
    contentType: row.content_type,
    nodeSummaries: [],
    embeddingModel: "",
    chunkCount: 0,
    validFrom: row.valid_from ?? undefined,
    validTo: row.valid_to ?? undefined,
    ...toEntryTrust(row),
  };
}

/**
 * The tsquery of a query as SQL over parameters. The parser functions never
 * raise on any input; the prefix and any-word modes pass `to_tsquery` only
 * words stripped of every syntax character (see `toLexemeQuery`).
 */
function tsquerySql(query: FullTextQuery, params: SqlParams): string {
  const language = `${params.add(query.language)}::regconfig`;
  switch (query.mode) {
    case "match":
      return `plainto_tsquery(${language}, ${params.add(query.text)})`;
    case "phrase":
      return `phraseto_tsquery(${language}, ${params.add(query.text)})`;
    case "boolean":
      return `websearch_to_tsquery(${language}, ${params.add(query.text)})`;
    case "prefix":
    case "any":
      return `to_tsquery(${language}, ${params.add(toLexemeQuery(query.text, query.mode))})`;
  }
}

/** ts_rank_cd normalisation: 0 ranks by cover density alone; see docs/retrieval.md for why. */
export const rankNormalization = 0;

/** The search repository over a migrated database. */
export function createSearchRepository(db: SqlDatabase): SearchRepository {
  return {
    async fullText(principal, query, filter, page, highlight) {
      const params = createSqlParams();
      const tsquery = tsquerySql(query, params);
      const conditions = [`e.search_vector @@ ${tsquery}`, accessPredicate(principal, "e", params), ...searchFilterConditions(filter, "e", params)];
      // With as_of, the match is also pushed into the source, where the stored vectors' indexes serve it; the
      // listing reads only the page's entries (joined by id alone, it would build every matching row's columns).
      const source = entrySource(principal, filter, params, { matching: tsquery });
      const pageSource = entrySource(principal, filter, params, { ids: "(SELECT page.id FROM page)" });
      const headline = highlight
        ? `ts_headline(${params.add(query.language)}::regconfig, translate(left(e.text, ${highlightTextLimit}), chr(2) || chr(3) || chr(31), ''), ${tsquery}, ${params.add(headlineOptions)})`
        : "NULL::text";
      // Rank and cut in the inner query; the outer one reads listing columns and highlights for the page only.
      const { rows } = await db.query<ListingRow & { score: number; headline: string | null }>(
        `WITH page AS (
           SELECT e.id, ts_rank_cd(e.search_vector, ${tsquery}, ${rankNormalization}) AS score
           FROM ${source} e
           WHERE ${conditions.join(" AND ")}
           ORDER BY score DESC, e.id DESC
           LIMIT ${params.add(page.limit)} OFFSET ${params.add(page.offset)}
         )
         SELECT ${listingColumns(filter)}, page.score, ${headline} AS headline
         FROM page JOIN ${pageSource} e ON e.id = page.id
         WHERE ${accessPredicate(principal, "e", params)}
         ORDER BY page.score DESC, e.id DESC`,
        params.values,
      );
      return rows.map((row) => ({ entry: toListing(row), score: Number(row.score), headline: row.headline ?? undefined }));
    },

    async isEmptyQuery(query) {
      const params = createSqlParams();
      const { rows } = await db.query<{ nodes: number }>(`SELECT numnode(${tsquerySql(query, params)}) AS nodes`, params.values);
      return (rows[0]?.nodes ?? 0) === 0;
    },

    async listings(principal, ids, filter) {
      if (ids.length === 0) return [];
      const params = createSqlParams();
      const conditions = [`e.id = ANY(${params.add(ids)}::uuid[])`, accessPredicate(principal, "e", params), ...searchFilterConditions({ ...filter, asOf: undefined }, "e", params)];
      const { rows } = await db.query<ListingRow>(`SELECT ${listingColumns(live)} FROM entries e WHERE ${conditions.join(" AND ")}`, params.values);
      return rows.map(toListing);
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

    async grepCandidates(principal, filter, literal, cursor, limit) {
      const params = createSqlParams();
      const conditions = [accessPredicate(principal, "e", params), ...searchFilterConditions(filter, "e", params)];
      if (literal !== undefined) conditions.push(`strpos(e.text, ${params.add(literal)}) > 0`);
      if (cursor !== undefined) conditions.push(`(e.created_at, e.id) < (${params.add(cursor.createdAt.toISOString())}::timestamptz, ${params.add(cursor.id)}::uuid)`);
      const { rows } = await db.query<{ id: string; thread_id: string; created_at: Date; text_length: number; trust_state: TrustState }>(
        `SELECT e.id, e.thread_id, e.created_at, e.text_length, e.trust_state FROM ${entrySource(principal, filter, params)} e
         WHERE ${conditions.join(" AND ")}
         ORDER BY e.created_at DESC, e.id DESC
         LIMIT ${params.add(limit)}`,
        params.values,
      );
      return rows.map((row) => ({ id: row.id, threadId: row.thread_id, createdAt: row.created_at, textLength: Number(row.text_length), trustState: row.trust_state }));
    },

    async grepTexts(principal, filter, ids) {
      if (ids.length === 0) return new Map();
      const params = createSqlParams();
      const conditions = [accessPredicate(principal, "e", params), ...searchFilterConditions(filter, "e", params), `e.id = ANY(${params.add(ids)}::uuid[])`];
      const { rows } = await db.query<{ id: string; text: string }>(`SELECT e.id, e.text FROM ${entrySource(principal, filter, params)} e WHERE ${conditions.join(" AND ")}`, params.values);
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
      const { rows } = await db.query<{ name: string }>("SELECT cfgname AS name FROM pg_ts_config WHERE cfgnamespace = 'pg_catalog'::regnamespace ORDER BY cfgname");
      return rows.map((row) => row.name);
    },
  };
}
