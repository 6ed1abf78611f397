// What the ranked searches (fts, semantic, hybrid) return: hits with their scores, explain and the page.
import { z } from "zod";
import { entryListingOutput } from "./output-schemas.js";

const legScore = z.object({ rank: z.number(), score: z.number() }).nullable();
const span = z.object({ start: z.number(), end: z.number() });

const explainedLeg = z
  .object({
    rank: z.number(),
    score: z.number(),
    contribution: z.number().nullable().describe("What this leg added to the fused score (hybrid only)."),
  })
  .nullable();

export const searchHitOutput = entryListingOutput.extend({
  rank: z.number(),
  score: z.number(),
  scores: z.object({ fts: legScore, semantic: legScore, fused: z.number().nullable(), rerank: legScore }),
  best_chunk: span.nullable(),
  highlights: z.array(z.object({ text: z.string(), matches: z.array(span) })).optional(),
  passages: z
    .array(
      z.object({
        node_id: z
          .string()
          .describe('The outline section the passage starts in (navigate_context); "" before the first heading.'),
        start: z.number(),
        end: z.number(),
        text: z.string(),
        score: z.number().nullable().describe("The reranker's score of the passage; null when it could not score."),
      }),
    )
    .optional()
    .describe("With passages_per_entry: the result's best passages, best first."),
  explain: z
    .object({ fts: explainedLeg, semantic: explainedLeg, fused: z.number().nullable(), rerank: legScore })
    .optional()
    .describe("With explain_query: each leg's rank, score and contribution, the fused score and the rerank score."),
});

const searchExplain = z
  .object({
    ranked_by: z.string().describe("The score results are ranked by and min_score is compared with."),
    fusion_method: z.string().nullable(),
    rrf_k: z.number().nullable(),
    weights: z.object({ fts: z.number(), semantic: z.number() }).nullable(),
    fts_mode: z.string().nullable(),
    fts_feedback: z
      .object({
        documents: z
          .number()
          .describe(
            "Entries of the first pass (in hybrid: the full-text leg's ranking) taken as relevant (0: it found none, so the query was not expanded).",
          ),
        terms: z
          .array(z.object({ term: z.string(), weight: z.number() }))
          .describe(
            "The words added to the query as the text-search configuration stems them, heaviest first, with their share of the expansion.",
          ),
      })
      .nullable()
      .optional()
      .describe("With feedback on the full-text leg: what it added to the query."),
    stages_ms: z
      .record(z.string(), z.number())
      .describe(
        "Milliseconds in each stage that ran: embed, fts, semantic, fusion (both fusions, with feedback), feedback (re-scoring the candidates by the expanded query), passages, rerank, listings (reading the shown page), with passages_per_entry entry_passages and passage_rerank, and total.",
      ),
  })
  .optional()
  .describe("With explain_query: how the call ranked and where its time went.");

const searchPage = {
  results: z.array(searchHitOutput),
  count: z.number(),
  limit: z.number(),
  offset: z.number(),
  has_more: z.boolean(),
  max_depth: z.number(),
  warnings: z.array(z.string()),
  dropped_below_min_score: z.number().describe("Results left out for scoring below min_score (0 without one)."),
  explain: searchExplain,
};

export const ftsSearchOutput = z.object({ ...searchPage, mode: z.string(), language: z.string() });
export const semanticSearchOutput = z.object({ ...searchPage, embedding_model: z.string(), strategy: z.string() });
export const hybridSearchOutput = z.object({
  ...searchPage,
  legs: z.object({
    fts: z.object({ ok: z.boolean(), candidates: z.number() }),
    semantic: z.object({ ok: z.boolean(), candidates: z.number() }),
    rerank: z.object({ ok: z.boolean(), reranked: z.number() }),
  }),
});
