/** What the search service is: its limits, its requests and results, its interface and what it is built over. */
import type { StoredEntry, TextSpan } from "../model/entry-model.js";
import type { EntryRepository } from "../entries/entry-ports.js";
import type { GrepLineMatch, GrepOutputMode } from "./grep.js";
import type { GrepRunner } from "./grep-runner.js";
import type { OutlineNodeView, RangeRequest } from "./navigation.js";
import type { OutlineWork } from "./outline-work.js";
import type { OutlineMove } from "./outline-moves.js";
import type { Principal } from "../model/principal.js";
import type { SearchFilterInput } from "../model/search-filter.js";
import type { FeedbackUsed, SearchRepository } from "./search-ports.js";
import type { FullTextMode, Highlight } from "./text-search.js";
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
