/**
 * What search needs from storage (SearchRepository) and the rows it hands
 * back; search-repository.ts implements it in SQL.
 */
import type { StoredEntry } from "../model/entry-model.js";
import type { Principal } from "../model/principal.js";
import type { SearchFilter } from "../model/search-filter.js";
import type { TrustState } from "../model/trust.js";
import type { FeedbackOptions, WeightedLexeme } from "./bm25-feedback.js";
import type { FullTextQuery } from "./bm25-sql.js";

export interface FullTextRow {
  id: string;
  /** The listing; undefined when only ids and scores were asked for. */
  entry: StoredEntry | undefined;
  score: number;
  /** ts_headline output when highlighting was asked for. */
  headline: string | undefined;
}

/** What a feedback search used: how many entries it took as relevant and the expansion terms it added, heaviest first. */
export interface FeedbackUsed {
  documents: number;
  terms: WeightedLexeme[];
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
  /**
   * One page of the visible, filtered entries matching the query, best BM25
   * first (ties: newer first, then the greater id); with `idsOnly`, each
   * hit's id and score without its listing (highlight is then ignored).
   */
  fullText(
    principal: Principal,
    query: FullTextQuery,
    filter: SearchFilter,
    page: { limit: number; offset: number },
    highlight: boolean,
    idsOnly?: boolean,
    within?: readonly string[],
  ): Promise<FullTextRow[]>;
  /**
   * The same page ranked with pseudo-relevance feedback (bm25-feedback.ts):
   * a first pass finds the best `feedback.documents` entries, their words
   * expand the query, a second pass ranks by it. With `feedback.relevant`
   * (now only), those entries are taken as relevant instead and no first
   * pass runs; with `within` (now only), only those entries are ranked, and
   * in any-word mode every expansion word matches them. Not for prefix queries.
   */
  fullTextWithFeedback(
    principal: Principal,
    query: FullTextQuery,
    filter: SearchFilter,
    page: { limit: number; offset: number },
    highlight: boolean,
    feedback: FeedbackOptions,
    idsOnly?: boolean,
    within?: readonly string[],
  ): Promise<{ rows: FullTextRow[]; feedback: FeedbackUsed }>;
  /** Whether the query reduces to nothing searchable (only stop words or punctuation). */
  isEmptyQuery(query: FullTextQuery): Promise<boolean>;
  /**
   * The visible entries among `ids` that pass `filter` (the trust filter and
   * valid time included; `asOf` is not read here), as listings (preview, no
   * text). Any order. Re-checks a vector index's candidates in the database.
   */
  listings(principal: Principal, ids: readonly string[], filter: SearchFilter): Promise<StoredEntry[]>;
  /** The ids among `ids` that `listings` would return, without reading their listings. */
  visibleIds(principal: Principal, ids: readonly string[], filter: SearchFilter): Promise<Set<string>>;
  /** The first `chars` characters of each visible entry's text, by id; quarantined and rejected entries' texts are never handed out here. */
  texts(principal: Principal, items: readonly { id: string; chars: number }[]): Promise<Map<string, string>>;
  /**
   * The next `limit` visible, filtered entries after `cursor`, newest first,
   * with their texts; with `literal`, only those whose text contains it
   * (the caller rechecks, so the test may be looser than the real match).
   */
  grepCandidates(
    principal: Principal,
    filter: SearchFilter,
    literal: string | undefined,
    cursor: GrepCursor | undefined,
    limit: number,
  ): Promise<GrepCandidate[]>;
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
