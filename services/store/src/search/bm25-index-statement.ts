/**
 * The whole-word ranking statement over a tenant's own BM25 index (see
 * bm25-indexes.ts): the index hands back the tenant's entries best first,
 * the access predicate and the filters are applied to them as they come,
 * and the scan stops once the page (or, for a search that must match more
 * than any word, a bounded depth) is read, so its cost follows the page,
 * not the number of matches.
 */
import { accessPredicate } from "../filters/access-predicate.js";
import type { SqlParams } from "../db/sql-database.js";
import type { Principal } from "../model/principal.js";
import type { SearchFilter } from "../model/search-filter.js";
import { searchFilterConditions } from "../filters/search-filter-sql.js";
import { tsquerySql, type FullTextQuery } from "./bm25-sql.js";
import { sqlLiteral, tokensSql } from "./bm25-indexes.js";
import { pageStatement, type FullTextStatementOptions } from "./full-text-statement.js";

/** Entries read past the page, so that ties at its end are broken as the SQL ranking breaks them. */
const tieMargin = 16;

/** Fewest of the index's best entries a search that must match more than any word reads. */
const matchDepth = 100;

/**
 * Whether the page an indexed statement returned is the ranking's: always
 * for any word; otherwise when it is full (at least `offset + limit` of the
 * entries read matched, and every entry left unread scores lower).
 */
export function indexedPageHolds(mode: FullTextQuery["mode"], rows: number, page: { limit: number }): boolean {
  return mode === "any" || rows >= page.limit;
}

/**
 * The page of `query`'s ranking by `index` (the caller's tenant's), with
 * `tokens` its lexemes as the index's tokens (`queryTokens`). Only now (no
 * `as_of`) and without `include_quarantined`: the index holds the
 * searchable entries of now. Any word: the index's own order. Every word,
 * a phrase, web-search syntax: the entries that match the query among the
 * index's best max(`matchDepth`, 4 × (offset + limit + `tieMargin`)),
 * scored alike, so they are the best matches: the whole page when at least
 * `offset + limit` of them match;
 * otherwise `indexedPageHolds` says so and the caller ranks in SQL (few
 * entries match then, which the GIN index finds quickly). Following the
 * index's order until enough entries match instead can read most of the
 * tenant, and scoring every GIN match through the index's operator costs
 * more than BM25 in SQL. The tenant is written as a literal, so the
 * planner proves the search lies inside the partial index in every plan.
 * Scores are BM25 with the index's statistics (the tenant's), `k1` and `b`;
 * entries holding none of the query's words score 0 and are left out.
 * Ties are broken by recency and id, as in SQL, among the page and the
 * `tieMargin` entries the index returns after it (equal texts tie).
 * Not for prefixes (the index holds whole lexemes).
 */
export function indexedFullTextStatement(
  principal: Principal,
  index: string,
  tokens: string,
  query: FullTextQuery,
  filter: SearchFilter,
  page: { limit: number; offset: number },
  options: Pick<FullTextStatementOptions, "highlight" | "rankOnly">,
  params: SqlParams,
): string {
  const bm25query = () => `to_bm25query(${params.add(tokens)}::text, ${sqlLiteral(index)})`;
  const distance = `${tokensSql("e")} <@> ${bm25query()}`;
  if (query.mode === "prefix") throw new Error("a tenant's BM25 index holds whole lexemes, not prefixes");
  const highlighting = options.highlight && options.rankOnly !== true;
  const parsed = highlighting || query.mode !== "any";
  const conditions = [
    `e.tenant = ${sqlLiteral(principal.tenant)}`,
    accessPredicate(principal, "e", params),
    ...searchFilterConditions(principal, filter, "e", params),
  ];
  // The score the index scan found for the row it returns; 0 from any other plan (a sort over a sequential scan on a
  // small table), where the operator scores the row again (reading its vector and its tokens: ~0.1 ms a row).
  const score = `coalesce(nullif(-bm25_get_current_score()::float8, 0), -(${tokensSql("e")} <@> ${bm25query()})::float8)`;
  const wanted = page.offset + page.limit + tieMargin;
  const matching = query.mode === "any" ? "TRUE" : "e.search_vector @@ (SELECT sq.tsquery FROM search_query sq)";
  const depth = query.mode === "any" ? wanted : Math.max(matchDepth, 4 * wanted);
  // The scan sits in the statement's own FROM, never in a CTE: the extension spares each row the ORDER BY operator
  // (it hands the scan's score to bm25_get_current_score instead) only in the main plan, and a CTE holding that
  // volatile function is planned apart. In a CTE every row read was scored twice, ~60 µs a row at 100,000 entries.
  const rows = `(
       SELECT s.id, s.created_at, s.score
       FROM (
         SELECT e.id, e.created_at, ${score} AS score, ${matching} AS matches
         FROM entries e
         WHERE ${conditions.join(" AND ")}
         ORDER BY ${distance}
         LIMIT ${params.add(depth)}
       ) s
       WHERE s.matches AND s.score > 0
       ORDER BY s.score DESC, s.created_at DESC, s.id DESC
       LIMIT ${params.add(page.limit)} OFFSET ${params.add(page.offset)}
     )`;
  const ranked = {
    with: parsed ? `WITH search_query AS MATERIALIZED (SELECT ${tsquerySql(query, params)} AS tsquery)` : "",
    rows,
  };
  return pageStatement(ranked, principal, query, filter, { ...options, highlight: highlighting }, params);
}
