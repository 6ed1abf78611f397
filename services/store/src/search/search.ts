/**
 * The search domain: full-text and vector rankings, passages for reranking,
 * outline navigation, range reads and grep, each over exactly the entries a
 * caller may see (the repositories compose the access predicate into every
 * query before its limit). Validation and limits live here; no transport or
 * SQL. Documented in docs/retrieval.md.
 */
import { ContextHubError, invalidArgument } from "@context-hub/common";
import type { StoredEntry, TextSpan } from "../model/entry-model.js";
import { entryNotFound, resolveOne } from "../entries/entry-changes.js";
import type { EntryRepository } from "../entries/entry-ports.js";
import { compilePattern, grepLimits, type GrepLineMatch, type GrepOutputMode } from "./grep.js";
import type { GrepRunner } from "./grep-runner.js";
import { toIdQuery } from "../model/id-query.js";
import { isUuid } from "../model/ids.js";
import { outlinePageLimits, rangeLimits, toLineStarts, type OutlineNodeView, type RangeRequest } from "./navigation.js";
import { inlineOutlineWork, type OutlineWork } from "./outline-work.js";
import { toOutlineStep, type OutlineMove } from "./outline-moves.js";
import { findPassage, findPassages, outlineNodeFinder, passageScanLimit } from "./passages.js";
import { requirePrincipal, type Principal } from "../model/principal.js";
import { validateSearchFilter, type SearchFilterInput } from "../model/search-filter.js";
import type { FeedbackUsed, FullTextRow, GrepCursor, SearchRepository } from "./search-repository.js";
import { feedbackLimits, type FeedbackOptions } from "./bm25-feedback.js";
import {
  chooseQueryLanguage,
  parseHeadline,
  validateFullTextQuery,
  type FullTextMode,
  type Highlight,
} from "./text-search.js";
import type { TrustState } from "../model/trust.js";
import type { VectorIndex, VectorStrategy } from "../vectors/vector-index.js";

/** Limits every search holds to; documented in docs/retrieval.md. */
export const searchLimits = {
  /** The deepest a ranking goes: offset + limit may not exceed it. */
  maxRankingDepth: 500,
  defaultLimit: 10,
  /** As deep as a ranking goes: the gateway shows pages of at most 100, but a hybrid leg fetches its candidates in one call. */
  maxLimit: 500,
  modelNameLength: 256,
  maxDimension: 16_000,
  passageItems: 200,
  passageDefaultChars: 1_200,
  passageMinChars: 100,
  passageMaxChars: 4_000,
  /** The most windows one item of a passages request gets (deep reading); items × windows stays within passageItems. */
  passagesPerItemMax: 5,
  grep: {
    defaultMaxMatches: 100,
    maxMatches: 1_000,
    defaultMaxMatchesPerEntry: 20,
    maxMatchesPerEntry: 1_000,
    defaultMaxEntries: 1_000,
    maxEntries: 10_000,
    /** Characters of text one grep call reads at most. */
    maxScanChars: 64_000_000,
    /** Entries fetched from the database per round. */
    pageEntries: 50,
    /**
     * Characters of text one round holds at most (one entry more when a single
     * text is longer): what a grep call keeps in memory at once, also while it
     * waits for a worker, whatever the entries' sizes.
     */
    pageChars: 4_000_000,
    /** Time the pattern may spend on one entry, and on the whole call. */
    perEntryMs: 250,
    totalMs: 3_000,
  },
} as const;

export interface SearchHitResult {
  entryId: string;
  /** A listing: preview and summary, no full text; undefined when only ids and scores were asked for. */
  entry: StoredEntry | undefined;
  score: number;
  /** 1-based position in the ranking, offset included. */
  rank: number;
  /** Semantic: the entry's best-matching chunk. */
  chunk: TextSpan | undefined;
  highlights: Highlight[];
}

export interface FullTextRequest {
  query: string;
  mode: FullTextMode;
  /** Empty for the store's configured language. */
  language: string;
  filter: SearchFilterInput | undefined;
  limit: number;
  offset: number;
  highlight: boolean;
  /** Rank with pseudo-relevance feedback (bm25-feedback.ts); each knob 0 (or undefined) for its default. */
  feedback?: FeedbackRequest | undefined;
  /** Return ids and scores only, no listings (see `listings`); not with highlight. */
  idsOnly?: boolean | undefined;
  /** Rank only these entries (a fused ranking's candidates); empty or undefined: every entry. Not with as_of. */
  withinIds?: readonly string[] | undefined;
}

/** Pseudo-relevance feedback as asked for: 0 (or undefined) takes a knob's default. */
export interface FeedbackRequest {
  documents: number;
  terms: number;
  queryWeight: number | undefined;
  /** The entries to take as relevant, best first, instead of a first pass's best; empty or undefined: a first pass. Not with as_of. */
  relevantIds?: readonly string[] | undefined;
  /** One weight (> 0) per relevant id; empty or undefined: each weighs the same. */
  relevantWeights?: readonly number[] | undefined;
}

export interface FullTextResult {
  hits: SearchHitResult[];
  hasMore: boolean;
  language: string;
  warnings: string[];
  /** With feedback: the entries it took as relevant and the expansion terms it added. */
  feedback?: FeedbackUsed | undefined;
}

export interface SemanticRequest {
  model: string;
  vector: readonly number[];
  filter: SearchFilterInput | undefined;
  limit: number;
  offset: number;
  /** Return ids, scores and chunks only, no listings (see `listings`). */
  idsOnly?: boolean | undefined;
}

export interface SemanticResult {
  hits: SearchHitResult[];
  hasMore: boolean;
  strategy: VectorStrategy;
  warnings: string[];
}

export interface PassagesRequest {
  query: string;
  items: readonly { entryId: string; span: TextSpan | undefined }[];
  /** 0 for the default. */
  maxChars: number;
  /**
   * 0 (or left out): one window per item, to rerank. 1 to `passagesPerItemMax`:
   * up to that many windows per item that do not overlap, best first, each
   * with the outline node it starts in (deep reading).
   */
  perItem?: number | undefined;
}

export interface PassageResult {
  entryId: string;
  text: string;
  span: TextSpan;
  /** With `perItem`: the id of the deepest outline section the passage starts in ("" before the first heading). */
  nodeId: string;
}

export interface NavigateResult {
  /** A listing of the entry (no full text). */
  entry: StoredEntry;
  /** One page of the outline, from the request's offset. */
  nodes: OutlineNodeView[];
  lineCount: number;
  totalNodes: number;
  /** Where the next page starts; 0 when this is the last. */
  nextOffset: number;
  /** Why a move reached no node (past the root, the first or the last sibling); empty otherwise. */
  note: string;
}

export interface ReadRangeRequest {
  id: string;
  range: RangeRequest | undefined;
  /** 0 for the default. */
  maxChars: number;
  /** Read a quarantined or rejected entry too (withheld otherwise). */
  includeQuarantined?: boolean | undefined;
}

export interface ReadRangeResult {
  entryId: string;
  text: string;
  span: TextSpan;
  startLine: number;
  endLine: number;
  truncated: boolean;
  textLength: number;
  lineCount: number;
  heading: string;
  /** The entry's trust state (quarantined or rejected only when the read asked for them); undefined only if the read did not report it. */
  trustState: TrustState | undefined;
}

export interface GrepRequest {
  pattern: string;
  regex: boolean;
  caseInsensitive: boolean;
  filter: SearchFilterInput | undefined;
  mode: GrepOutputMode;
  contextLines: number;
  /** 0 for the default, each. */
  maxMatches: number;
  maxMatchesPerEntry: number;
  maxEntries: number;
}

export interface GrepEntryResult {
  entryId: string;
  threadId: string;
  matchCount: number;
  matches: GrepLineMatch[];
  timedOut: boolean;
  /** The trust state of the text searched: quarantined or rejected only with `filter.includeQuarantined`. */
  trustState: TrustState;
}

export interface GrepResult {
  entries: GrepEntryResult[];
  entriesScanned: number;
  totalMatches: number;
  truncated: boolean;
  timedOut: boolean;
  warnings: string[];
}

export interface SearchService {
  /** The visible, filtered entries matching a full-text query, best first. */
  fullText(principal: Principal | undefined, request: FullTextRequest): Promise<FullTextResult>;
  /** The visible, filtered entries whose best chunk is nearest to a query vector. */
  semantic(principal: Principal | undefined, request: SemanticRequest): Promise<SemanticResult>;
  /** The listings of the visible entries among `ids` that pass `filter`, in the order of `ids`: the page a ranking of ids shows. */
  listings(
    principal: Principal | undefined,
    request: { ids: readonly string[]; filter: SearchFilterInput | undefined },
  ): Promise<StoredEntry[]>;
  /** A passage of each visible entry to rerank; items naming entries the caller cannot see are left out. */
  passages(principal: Principal | undefined, request: PassagesRequest): Promise<PassageResult[]>;
  /** The heading outline of one visible entry. */
  navigate(
    principal: Principal | undefined,
    request: {
      id: string;
      maxDepth: number;
      includeQuarantined?: boolean | undefined;
      offset?: number | undefined;
      maxNodes?: number | undefined;
      /** Move from this node (with `move`) instead of listing the outline. */
      nodeId?: string | undefined;
      move?: OutlineMove | undefined;
    },
  ): Promise<NavigateResult>;
  /** A bounded range of one visible entry's text. */
  readRange(principal: Principal | undefined, request: ReadRangeRequest): Promise<ReadRangeResult>;
  /** A pattern over the texts of visible, filtered entries, newest first, under a time budget. */
  grep(principal: Principal | undefined, request: GrepRequest, signal?: AbortSignal): Promise<GrepResult>;
}

export interface SearchServiceDependencies {
  repository: SearchRepository;
  entries: EntryRepository;
  vectors: VectorIndex;
  grep: GrepRunner;
  /** The language the stored index uses, and those a query may choose instead. */
  languages: { configured: string; allowed: readonly string[] };
  /** Where outlines and node ranges of long texts are worked out (off the serving thread); on the calling thread if absent. */
  outlines?: OutlineWork | undefined;
}

/**
 * A page of a ranking: limit 1–500 (0 means 10); offset + limit at most the
 * ranking depth, since a ranking is only computed that deep.
 */
export function validateSearchPage(limit: number, offset: number): { limit: number; offset: number } {
  if (limit > searchLimits.maxLimit)
    throw invalidArgument(`limit must be 1 to ${searchLimits.maxLimit} (got ${limit})`);
  const page = { limit: limit === 0 ? searchLimits.defaultLimit : limit, offset };
  if (page.offset + page.limit > searchLimits.maxRankingDepth) {
    throw invalidArgument(
      `offset + limit must be at most ${searchLimits.maxRankingDepth}, the deepest a ranking goes (got ${page.offset + page.limit})`,
      "narrow the search with filters (thread, tags, metadata, dates) instead of paging deeper",
    );
  }
  return page;
}

function validateVector(model: string, vector: readonly number[]): void {
  if (model.length === 0 || model.length > searchLimits.modelNameLength)
    throw invalidArgument(`embedding_model must be 1 to ${searchLimits.modelNameLength} characters`);
  if (vector.length === 0 || vector.length > searchLimits.maxDimension)
    throw invalidArgument(`vector must have 1 to ${searchLimits.maxDimension} values (got ${vector.length})`);
  if (!vector.every(Number.isFinite)) throw invalidArgument("vector must hold only finite numbers");
}

/**
 * Feedback knobs checked and defaulted. Prefix queries are refused: their
 * terms stand for every word they start, which a weighted query of whole
 * words cannot express.
 */
export function validateFeedback(request: FeedbackRequest, mode: FullTextMode): FeedbackOptions {
  if (mode === "prefix")
    throw invalidArgument(
      "feedback is not available in prefix mode",
      "use mode any or match with feedback, or prefix without it",
    );
  const documents = boundedCount(
    request.documents,
    feedbackLimits.defaultDocuments,
    feedbackLimits.maxDocuments,
    "feedback documents",
  );
  const terms = boundedCount(request.terms, feedbackLimits.defaultTerms, feedbackLimits.maxTerms, "feedback terms");
  const queryWeight = request.queryWeight ?? feedbackLimits.defaultQueryWeight;
  if (!(queryWeight >= 0 && queryWeight <= 1))
    throw invalidArgument(`feedback query weight must be 0 to 1 (got ${queryWeight})`);
  const relevantIds = request.relevantIds ?? [];
  if (relevantIds.length === 0) return { documents, terms, queryWeight };
  relevantIds.forEach((id, index) => {
    if (!isUuid(id)) throw invalidArgument(`feedback relevant_ids[${index}] must be a full entry id`);
  });
  const given = request.relevantWeights ?? [];
  if (given.length > 0 && given.length !== relevantIds.length)
    throw invalidArgument(
      `feedback relevant_weights must give one weight per relevant id (got ${given.length} for ${relevantIds.length})`,
    );
  if (!given.every((weight) => Number.isFinite(weight) && weight > 0))
    throw invalidArgument("feedback relevant_weights must be finite and greater than 0");
  // At most `documents` of them are read, as a first pass would keep its best `documents`.
  const ids = relevantIds.slice(0, documents);
  const weights = given.length > 0 ? given.slice(0, documents) : ids.map(() => 1);
  return { documents, terms, queryWeight, relevant: { ids, weights } };
}

/** The ids a full-text search ranks within, checked; undefined when it ranks every entry. */
export function validateWithinIds(ids: readonly string[] | undefined): readonly string[] | undefined {
  if (ids === undefined || ids.length === 0) return undefined;
  if (ids.length > searchLimits.maxRankingDepth)
    throw invalidArgument(`within_ids may hold at most ${searchLimits.maxRankingDepth} ids (got ${ids.length})`);
  ids.forEach((id, index) => {
    if (!isUuid(id)) throw invalidArgument(`within_ids[${index}] must be a full entry id`);
  });
  return ids;
}

function boundedCount(value: number, fallback: number, max: number, field: string): number {
  if (value === 0) return fallback;
  if (value > max) throw invalidArgument(`${field} must be 1 to ${max} (got ${value})`);
  return value;
}

/** The entry's listing: what a search result shows, without the full text or outline. */
function toListing(entry: StoredEntry): StoredEntry {
  return {
    ...entry,
    text: "",
    nodeSummaries: [],
    images: entry.images.map((image) => ({ ...image, data: undefined })),
  };
}

/** The search service over its repositories. */
export function createSearchService(dependencies: SearchServiceDependencies): SearchService {
  const { repository, entries, vectors, grep, languages } = dependencies;
  const outlines = dependencies.outlines ?? inlineOutlineWork;

  /**
   * The one entry an id names among those the caller may see, with text and
   * node summaries; ENTRY_NOT_FOUND exactly as for a by-id fetch otherwise.
   * A quarantined or rejected entry the caller may see is withheld as a
   * fetch withholds it: PERMISSION_DENIED naming its state, unless
   * `includeQuarantined`.
   */
  async function readEntry(caller: Principal, input: string, includeQuarantined: boolean): Promise<StoredEntry> {
    const id = await resolveOne(entries, caller, toIdQuery(input, "id"));
    const [entry] = await entries.getByIds(caller, [id], false, includeQuarantined);
    if (entry !== undefined) return entry;
    const [withheld] = includeQuarantined ? [] : await entries.withheldStates(caller, [id]);
    if (withheld !== undefined) {
      throw new ContextHubError(
        "PERMISSION_DENIED",
        `entry ${withheld.id} is withheld: its trust state is ${withheld.state}`,
        {
          remedy:
            "pass include_quarantined to read it anyway, and treat its content with suspicion; a reviewer can approve it",
          details: { id: withheld.id, trust_state: withheld.state },
        },
      );
    }
    // Deleted between resolution and read: for the caller it does not exist.
    throw entryNotFound(input);
  }

  return {
    async fullText(principal, request) {
      const caller = requirePrincipal(principal, "context:read");
      const text = validateFullTextQuery(request.query);
      const language = chooseQueryLanguage(request.language, languages.configured, languages.allowed);
      const filter = validateSearchFilter(request.filter);
      const page = validateSearchPage(request.limit, request.offset);
      const query = { mode: request.mode, text, language };
      const warnings: string[] = [];
      const feedback = request.feedback === undefined ? undefined : validateFeedback(request.feedback, request.mode);
      const idsOnly = request.idsOnly === true;
      if (idsOnly && request.highlight)
        throw invalidArgument("highlight needs the listings: ask for ids_only or highlight, not both");
      const within = validateWithinIds(request.withinIds);
      if (filter.asOf !== undefined && (within !== undefined || feedback?.relevant !== undefined)) {
        throw invalidArgument(
          "within_ids and feedback relevant_ids rank today's entries and are not available with as_of",
          "leave them out to search as of an instant",
        );
      }
      const window = { limit: page.limit + 1, offset: page.offset };
      let rows: FullTextRow[];
      let used: FeedbackUsed | undefined;
      if (feedback === undefined)
        rows = await repository.fullText(caller, query, filter, window, request.highlight, idsOnly, within);
      else
        ({ rows, feedback: used } = await repository.fullTextWithFeedback(
          caller,
          query,
          filter,
          window,
          request.highlight,
          feedback,
          idsOnly,
          within,
        ));
      if (rows.length === 0 && (await repository.isEmptyQuery(query))) {
        warnings.push(
          `the query has no searchable words in ${language} (only stop words or punctuation), so nothing can match it`,
        );
      }
      return {
        hits: rows.slice(0, page.limit).map((row, index) => ({
          entryId: row.id,
          entry: row.entry,
          score: row.score,
          rank: page.offset + index + 1,
          chunk: undefined,
          highlights: row.headline === undefined ? [] : parseHeadline(row.headline),
        })),
        hasMore: rows.length > page.limit,
        language,
        warnings,
        ...(used === undefined ? {} : { feedback: used }),
      };
    },

    async semantic(principal, request) {
      const caller = requirePrincipal(principal, "context:read");
      validateVector(request.model, request.vector);
      const filter = validateSearchFilter(request.filter);
      if (filter.asOf !== undefined) {
        throw invalidArgument(
          "filter.as_of is not available to semantic search: vectors are kept for the current version of each entry only",
          "search what the store held then with full text (fts_search_context, or hybrid_search_context, which answers from its full-text leg)",
        );
      }
      const page = validateSearchPage(request.limit, request.offset);
      const found = await vectors.nearestEntries(caller, {
        model: request.model,
        vector: request.vector,
        filter,
        limit: page.offset + page.limit + 1,
      });
      const window = found.hits.slice(page.offset, page.offset + page.limit);
      // The listing read applies the predicate and the filter again (a vector index's payload filter is re-checked here); an entry deleted since the scan drops out.
      // With ids only, the same check runs without reading the listings.
      const ids = window.map((hit) => hit.entryId);
      const listed =
        request.idsOnly === true
          ? new Map([...(await repository.visibleIds(caller, ids, filter))].map((id) => [id, undefined]))
          : new Map(
              (await repository.listings(caller, ids, filter)).map((entry) => [
                entry.id,
                entry as StoredEntry | undefined,
              ]),
            );
      const hits = window.flatMap((hit, index) => {
        if (!listed.has(hit.entryId)) return [];
        const similarity = Number.isNaN(hit.distance) ? 0 : 1 - hit.distance;
        return [
          {
            entryId: hit.entryId,
            entry: listed.get(hit.entryId),
            score: similarity,
            rank: page.offset + index + 1,
            chunk: hit.chunk,
            highlights: [],
          },
        ];
      });
      const warnings = [...found.warnings];
      if (
        found.hits.length === 0 &&
        (await repository.embeddedByOtherModels(caller, request.model, request.vector.length))
      ) {
        warnings.push(
          `no stored vectors you can search were made by ${request.model} (${request.vector.length} dimensions), so nothing can match; if the embedding model changed, an operator must re-embed the store`,
        );
      }
      return { hits, hasMore: found.hits.length > page.offset + page.limit, strategy: found.strategy, warnings };
    },

    async listings(principal, request) {
      const caller = requirePrincipal(principal, "context:read");
      if (request.ids.length > searchLimits.maxRankingDepth)
        throw invalidArgument(
          `ids must list at most ${searchLimits.maxRankingDepth} entries (got ${request.ids.length})`,
        );
      request.ids.forEach((id, index) => {
        if (!isUuid(id)) throw invalidArgument(`ids[${index}] must be a full entry id`);
      });
      const filter = validateSearchFilter(request.filter);
      if (filter.asOf !== undefined)
        throw invalidArgument(
          "filter.as_of is not available to listings: they show current versions",
          "read an earlier version's listing with a full-text search as of then",
        );
      const byId = new Map((await repository.listings(caller, request.ids, filter)).map((entry) => [entry.id, entry]));
      return request.ids.flatMap((id) => byId.get(id) ?? []);
    },

    async passages(principal, request) {
      const caller = requirePrincipal(principal, "context:read");
      if (request.items.length > searchLimits.passageItems)
        throw invalidArgument(
          `items must list at most ${searchLimits.passageItems} passages (got ${request.items.length})`,
        );
      const maxChars = request.maxChars === 0 ? searchLimits.passageDefaultChars : request.maxChars;
      if (maxChars < searchLimits.passageMinChars || maxChars > searchLimits.passageMaxChars) {
        throw invalidArgument(
          `max_chars must be ${searchLimits.passageMinChars} to ${searchLimits.passageMaxChars} (got ${maxChars})`,
        );
      }
      if (request.query.length > 1_000 || request.query.includes("\u0000"))
        throw invalidArgument("query must be at most 1000 characters, without NUL");
      const perItem = request.perItem ?? 0;
      if (!Number.isInteger(perItem) || perItem < 0 || perItem > searchLimits.passagesPerItemMax)
        throw invalidArgument(`per_item must be 0 to ${searchLimits.passagesPerItemMax} (got ${perItem})`);
      if (request.items.length * Math.max(perItem, 1) > searchLimits.passageItems)
        throw invalidArgument(
          `items × per_item must be at most ${searchLimits.passageItems} passages (got ${request.items.length} × ${perItem})`,
        );
      request.items.forEach((item, index) => {
        if (!isUuid(item.entryId)) throw invalidArgument(`items[${index}].entry_id must be a full entry id`);
        if (item.span !== undefined && item.span.end <= item.span.start)
          throw invalidArgument(`items[${index}].span must have end > start`);
      });
      const reach = new Map<string, number>();
      for (const item of request.items) {
        const chars = item.span === undefined ? passageScanLimit : item.span.end;
        reach.set(item.entryId, Math.max(reach.get(item.entryId) ?? 0, chars));
      }
      const texts = await repository.texts(
        caller,
        [...reach].map(([id, chars]) => ({ id, chars })),
      );
      return request.items.flatMap((item): PassageResult[] => {
        const text = texts.get(item.entryId);
        if (text === undefined) return [];
        if (perItem === 0) {
          const window = findPassage(text, request.query, maxChars, item.span);
          return [
            { entryId: item.entryId, text: window.text, span: { start: window.start, end: window.end }, nodeId: "" },
          ];
        }
        const windows = findPassages(text, request.query, maxChars, perItem, item.span);
        const nodeOf = outlineNodeFinder(text, Math.max(...windows.map((window) => window.start)) + 1);
        return windows.map((window) => ({
          entryId: item.entryId,
          text: window.text,
          span: { start: window.start, end: window.end },
          nodeId: nodeOf(window.start),
        }));
      });
    },

    async navigate(principal, request) {
      const caller = requirePrincipal(principal, "context:read");
      // Checked before the entry is read: a bad combination is refused alike for every entry, visible or not.
      const step = toOutlineStep(request);
      const entry = await readEntry(caller, request.id, request.includeQuarantined ?? false);
      const maxNodes = boundedCount(
        request.maxNodes ?? 0,
        outlinePageLimits.defaultNodes,
        outlinePageLimits.maxNodes,
        "max_nodes",
      );
      const page = { offset: request.offset ?? 0, maxNodes, maxBytes: outlinePageLimits.maxBytes };
      const outline = await outlines.outline(entry.text, entry.nodeSummaries, request.maxDepth, page, step);
      return {
        entry: toListing(entry),
        nodes: outline.nodes,
        lineCount: outline.lineCount,
        totalNodes: outline.totalNodes,
        nextOffset: outline.nextOffset,
        note: outline.note,
      };
    },

    async readRange(principal, request) {
      const caller = requirePrincipal(principal, "context:read");
      if (request.range === undefined)
        throw invalidArgument("give the range to read: chars (start, end), lines (start, end) or node_id");
      const maxChars = boundedCount(request.maxChars, rangeLimits.defaultMaxChars, rangeLimits.maxChars, "max_chars");
      const entry = await readEntry(caller, request.id, request.includeQuarantined ?? false);
      const range = await outlines.range(entry.text, request.range, maxChars);
      const lineCount = entry.text.length === 0 ? 0 : toLineStarts(entry.text).length;
      return {
        entryId: entry.id,
        text: entry.text.slice(range.span.start, range.span.end),
        span: range.span,
        startLine: range.startLine,
        endLine: range.endLine,
        truncated: range.truncated,
        textLength: entry.text.length,
        lineCount,
        heading: range.heading,
        trustState: entry.trust?.state,
      };
    },

    async grep(principal, request, signal) {
      const caller = requirePrincipal(principal, "context:read");
      const limits = searchLimits.grep;
      const pattern = compilePattern(request.pattern, {
        regex: request.regex,
        caseInsensitive: request.caseInsensitive,
      });
      const filter = validateSearchFilter(request.filter);
      if (request.contextLines > grepLimits.contextLines)
        throw invalidArgument(`context_lines must be 0 to ${grepLimits.contextLines} (got ${request.contextLines})`);
      const maxMatches = boundedCount(request.maxMatches, limits.defaultMaxMatches, limits.maxMatches, "max_matches");
      const maxPerEntry = boundedCount(
        request.maxMatchesPerEntry,
        limits.defaultMaxMatchesPerEntry,
        limits.maxMatchesPerEntry,
        "max_matches_per_entry",
      );
      const maxEntries = boundedCount(request.maxEntries, limits.defaultMaxEntries, limits.maxEntries, "max_entries");
      // A case-sensitive literal lets the database skip entries that cannot match; anything else is decided by the pattern itself.
      const literal = !request.regex && !request.caseInsensitive ? request.pattern : undefined;

      const deadline = performance.now() + limits.totalMs;
      const results: GrepEntryResult[] = [];
      const warnings: string[] = [];
      let cursor: GrepCursor | undefined;
      let scanned = 0;
      let scannedChars = 0;
      let totalMatches = 0;
      let reported = 0;
      let truncated = false;
      let timedOut = false;
      scan: for (;;) {
        const room = maxEntries - scanned;
        const page = await repository.grepCandidates(
          caller,
          filter,
          literal,
          cursor,
          Math.min(limits.pageEntries, room) + 1,
        );
        const batch = page.slice(0, Math.min(limits.pageEntries, room));
        if (batch.length === 0) break;
        // Sizes come first, texts after: a page reads only as much text as its budgets allow.
        const affordable: typeof batch = [];
        let pageChars = 0;
        for (const candidate of batch) {
          if (scannedChars + candidate.textLength > limits.maxScanChars && affordable.length + scanned > 0) break;
          if (pageChars + candidate.textLength > limits.pageChars && affordable.length > 0) break;
          scannedChars += candidate.textLength;
          pageChars += candidate.textLength;
          affordable.push(candidate);
        }
        const texts = await repository.grepTexts(
          caller,
          filter,
          affordable.map((candidate) => candidate.id),
        );
        const run = await grep.run(
          pattern,
          // An entry deleted since its size was read has no text left to match.
          affordable.map((candidate) => texts.get(candidate.id) ?? ""),
          { mode: request.mode, contextLines: request.contextLines, maxMatches: maxPerEntry },
          { perTextMs: limits.perEntryMs, deadline, signal },
        );
        for (const [index, outcome] of run.outcomes.entries()) {
          const candidate = affordable[index];
          if (candidate === undefined || outcome.status === "skipped") break;
          scanned++;
          cursor = { createdAt: candidate.createdAt, id: candidate.id };
          if (outcome.status === "timed_out") {
            results.push({
              entryId: candidate.id,
              threadId: candidate.threadId,
              matchCount: 0,
              matches: [],
              timedOut: true,
              trustState: candidate.trustState,
            });
            continue;
          }
          if (outcome.result.matchCount === 0) continue;
          totalMatches += outcome.result.matchCount;
          const shown = request.mode === "content" ? outcome.result.matches.slice(0, maxMatches - reported) : [];
          reported += request.mode === "content" ? shown.length : 1;
          results.push({
            entryId: candidate.id,
            threadId: candidate.threadId,
            matchCount: outcome.result.matchCount,
            matches: shown,
            timedOut: false,
            trustState: candidate.trustState,
          });
          if (reported >= maxMatches) {
            truncated = true;
            break scan;
          }
        }
        if (run.timedOut) {
          timedOut = true;
          break;
        }
        if (
          affordable.length < batch.length &&
          scannedChars + batch[affordable.length]!.textLength > limits.maxScanChars
        ) {
          truncated = true;
          warnings.push(`stopped after reading ${scannedChars} characters of text; narrow the search with filters`);
          break;
        }
        // A page cut short by its own budget continues with the next page, from the cursor.
        if (affordable.length < batch.length) continue;
        if (page.length > batch.length) {
          if (scanned >= maxEntries) {
            truncated = true;
            break;
          }
          continue;
        }
        break;
      }
      if (timedOut)
        warnings.push(
          `the pattern ran out of time (${limits.perEntryMs} ms per entry, ${limits.totalMs} ms in all); results cover the entries scanned so far`,
        );
      if (results.some((result) => result.timedOut))
        warnings.push("the pattern took too long on some entries (marked timed_out); simplify it or use a literal");
      return { entries: results, entriesScanned: scanned, totalMatches, truncated, timedOut, warnings };
    },
  };
}
