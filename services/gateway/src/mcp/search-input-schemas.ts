// The inputs of the ranked searches (fts, semantic, hybrid): paging, ranking, full-text modes and feedback.
import { z } from "zod";
import { defaultFtsFeedback } from "../search/hybrid-feedback.js";
import { defaultFusionMethod, defaultLegWeights, fusionMethods } from "../search/hybrid-fusion.js";
import { defaultRerankWeight } from "../search/hybrid-search.js";
import { maxPassagesPerEntry, maxPassagesPerSearch } from "../search/entry-passages.js";
import { peerHybridFields, peerSearchFields } from "./peer-arguments.js";
import { queryInput, searchFilterFields, searchToolLimits } from "./search-filter-schemas.js";

const pageFields = {
  limit: z
    .number()
    .int()
    .min(1)
    .max(searchToolLimits.pageSize, `limit must be at most ${searchToolLimits.pageSize}`)
    .optional()
    .describe("Results per page, default 10."),
  offset: z
    .number()
    .int()
    .min(0)
    .max(searchToolLimits.maxRankingDepth - 1)
    .optional()
    .describe(
      `Results to skip. offset + limit may not exceed ${searchToolLimits.maxRankingDepth}, the deepest a ranking goes.`,
    ),
};

const withinDepth = (value: { limit?: number | undefined; offset?: number | undefined }) =>
  (value.offset ?? 0) + (value.limit ?? searchToolLimits.defaultPageSize) <= searchToolLimits.maxRankingDepth;
const depthMessage = `offset + limit may not exceed ${searchToolLimits.maxRankingDepth}; narrow the search with filters instead of paging deeper`;

/** explain_query and min_score, which every ranked search tool takes; `scale` says what min_score is compared with. */
const rankingFields = (scale: string) => ({
  explain_query: z
    .boolean()
    .optional()
    .describe(
      "Add an explain object to every result (each leg's rank, score and share of the fused score, the fused and rerank scores) and to the reply (the method used and each stage's time in ms). Default false.",
    ),
  min_score: z
    .number()
    .finite()
    .optional()
    .describe(
      `Leave out results scoring below this, before the page is cut; dropped_below_min_score says how many were left out. ${scale}`,
    ),
});

export const fullTextModeNames = ["match", "prefix", "phrase", "boolean", "any"] as const;

const fullTextMode = z
  .enum(fullTextModeNames)
  .describe(
    'match: every word (default); prefix: every word as a prefix (config finds configuration); phrase: the words adjacent, in order; boolean: web-search syntax ("quoted phrase", OR, -excluded); any: at least one word, best coverage first.',
  );

/** Pseudo-relevance feedback on a full-text ranking; the store checks the same bounds. */
export const feedbackLimits = Object.freeze({ maxDocuments: 50, maxTerms: 100 });

const feedbackFields = {
  feedback: z
    .boolean()
    .optional()
    .describe(
      "Pseudo-relevance feedback (default false): the best entries of a first pass are taken as relevant, the words they share most expand the query, and a second pass ranks by the expanded query. Finds entries that use other words for the same thing; costs about two to three times a plain search. Not with mode prefix. explain_query lists the words added.",
    ),
  feedback_documents: z
    .number()
    .int()
    .min(1)
    .max(feedbackLimits.maxDocuments)
    .optional()
    .describe("With feedback: how many of the first pass's best entries are taken as relevant (default 10)."),
  feedback_terms: z
    .number()
    .int()
    .min(1)
    .max(feedbackLimits.maxTerms)
    .optional()
    .describe("With feedback: how many words are added to the query at most (default 20)."),
  feedback_query_weight: z
    .number()
    .min(0)
    .max(1)
    .optional()
    .describe(
      "With feedback: the original query's share of the expanded query (default 0.5; 1: the added words count for nothing).",
    ),
};

export const ftsSearchInput = z
  .object({
    query: queryInput.describe(
      "Words to find. Punctuation and operators never cause an error; in boolean mode they have web-search meaning.",
    ),
    mode: fullTextMode.optional(),
    language: z
      .string()
      .max(63)
      .regex(/^[a-z_]{1,63}$/, "language must be a text-search configuration name such as english, german or simple")
      .optional()
      .describe(
        "Parse the query in this language instead of the store's (e.g. simple: no stemming); the store lists the allowed ones if you pick another.",
      ),
    highlight: z.boolean().optional().describe("Add up to three fragments per result with the matching words marked."),
    ...feedbackFields,
    ...rankingFields(
      "The score is the store's full-text rank (0 or more; higher is better, unbounded, comparable within one query).",
    ),
    ...searchFilterFields,
    ...pageFields,
    ...peerSearchFields,
  })
  .strict()
  .refine(withinDepth, depthMessage)
  .refine(
    (value) =>
      value.feedback === true ||
      (value.feedback_documents === undefined &&
        value.feedback_terms === undefined &&
        value.feedback_query_weight === undefined),
    "feedback_documents, feedback_terms and feedback_query_weight apply only with feedback: true",
  )
  .refine(
    (value) => !(value.feedback === true && value.mode === "prefix"),
    "feedback is not available with mode prefix: use mode any or match with it",
  );

export const semanticSearchInput = z
  .object({
    query: queryInput.describe("What you are looking for, in your own words; matched by meaning, not by exact words."),
    ...rankingFields("The score is the cosine similarity of the best chunk, from -1 to 1 (1: the same meaning)."),
    ...searchFilterFields,
    ...pageFields,
    ...peerSearchFields,
  })
  .strict()
  .refine(withinDepth, depthMessage);

export const hybridSearchInput = z
  .object({
    query: queryInput.describe("What you are looking for: matched both by words and by meaning."),
    fts_mode: z
      .enum(["auto", ...fullTextModeNames])
      .optional()
      .describe(
        "How the full-text leg reads the query; it runs once. auto (default) is any: every entry holding at least one of the words, best-ranked first; or one of the fts_search_context modes (match: every word).",
      ),
    fts_feedback: z
      .boolean()
      .optional()
      .describe(
        `Pseudo-relevance feedback on the full-text leg (default ${defaultFtsFeedback}): the leg's best entries expand the query (as fts_search_context's feedback does), and the expanded query re-scores the candidates both legs found before they are fused. Not with fts_mode prefix.`,
      ),
    fusion_method: z
      .enum(fusionMethods)
      .optional()
      .describe(
        `How the two legs' rankings are combined (default ${defaultFusionMethod}): minmax rescales each leg's scores to 0..1 over its candidates and takes their weighted mean; zscore does the same after standardising each leg's scores; rrf sums weight / (rrf_k + rank) over the legs.`,
      ),
    rrf_k: z
      .number()
      .int()
      .min(1)
      .max(1_000)
      .optional()
      .describe(
        "Reciprocal rank fusion constant k (default 60, rrf only): larger flattens the difference between ranks.",
      ),
    fts_weight: z
      .number()
      .min(0)
      .max(10)
      .optional()
      .describe(`Weight of the full-text leg in the fusion (default ${defaultLegWeights.fts}).`),
    semantic_weight: z
      .number()
      .min(0)
      .max(10)
      .optional()
      .describe(`Weight of the semantic leg in the fusion (default ${defaultLegWeights.semantic}).`),
    rerank: z
      .boolean()
      .optional()
      .describe("Reorder the best fused results with the reranker over a passage of each (default true)."),
    rerank_weight: z
      .number()
      .min(0)
      .max(1)
      .optional()
      .describe(
        `A reranked result's score is rerank_weight × the reranker's score + (1 − rerank_weight) × its fused score rescaled to 0..1 over the reranked results (default ${defaultRerankWeight}; 1: the reranker alone).`,
      ),
    candidates: z
      .number()
      .int()
      .min(10)
      .max(searchToolLimits.maxCandidates)
      .optional()
      .describe(
        `Results each leg contributes before fusion (default ${searchToolLimits.defaultCandidates}, at least offset + limit).`,
      ),
    rerank_depth: z
      .number()
      .int()
      .min(1)
      .max(searchToolLimits.maxRerankDepth)
      .optional()
      .describe(
        `How many of the best fused results the reranker reorders (default ${searchToolLimits.defaultRerankDepth}); later results keep their fused order.`,
      ),
    passages_per_entry: z
      .number()
      .int()
      .min(1)
      .max(maxPassagesPerEntry)
      .optional()
      .describe(
        `Deep reading: up to this many passages of each result (1 to ${maxPassagesPerEntry}), parts of its text that do not overlap, best first by the reranker's score, each with its outline node_id and character range for read_context_range. limit × passages_per_entry may not exceed ${maxPassagesPerSearch}. Not with as_of.`,
      ),
    ...rankingFields(
      "It is compared with the score results are ranked by: the reranked score when reranking ran (see rerank_weight; 0..1 with the built-in reranker; results beyond rerank_depth, which it did not score, are left out too), else the fused score (minmax and zscore 0..1, 1: best in both legs; rrf at most (fts_weight + semantic_weight) / (rrf_k + 1)).",
    ),
    ...searchFilterFields,
    ...pageFields,
    ...peerHybridFields,
  })
  .strict()
  .refine(withinDepth, depthMessage)
  .refine(
    (value) => !(value.fts_feedback === true && value.fts_mode === "prefix"),
    "fts_feedback is not available with fts_mode prefix: use any or match with it",
  )
  .refine(
    (value) => value.passages_per_entry === undefined || value.as_of === undefined,
    "passages_per_entry is not available with as_of: passages are cut from the current text",
  )
  .refine(
    (value) => (value.limit ?? 10) * (value.passages_per_entry ?? 1) <= maxPassagesPerSearch,
    `limit × passages_per_entry may not exceed ${maxPassagesPerSearch}: lower one of them`,
  );
