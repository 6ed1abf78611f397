/**
 * Answers from evidence: the summarizer's Answer call (its configured
 * provider, extractive or a chat model), or, when summaries are off and no
 * summarizer runs, the same extractive answer worked out here (the evidence
 * is bounded by `answerLimits`, and the work is linear in it).
 */
import { answerLimits } from "@context-hub/common";
import { answerExtractively, extractiveAnswerModel, type DraftAnswer } from "@context-hub/text";
import type { Peers } from "./peers.js";

/** An answer as its provider gave it, before the gateway checks its citations. */
export interface ProvidedAnswer extends DraftAnswer {
  provider: string;
  model: string;
  /** True when a language model wrote the statements. */
  synthesised: boolean;
}

export function createAnswerClient(peers: Pick<Peers, "summarizer">) {
  return {
    async answer(question: string, passages: string[], maxStatements: number): Promise<ProvidedAnswer> {
      const bounded = passages.slice(0, answerLimits.passages).map((text) => text.slice(0, answerLimits.passageChars));
      if (peers.summarizer === undefined)
        return {
          provider: "builtin",
          model: extractiveAnswerModel,
          synthesised: false,
          ...answerExtractively(question, bounded, { maxStatements }),
        };
      const reply = await peers.summarizer.answer({ question, passages: bounded, maxStatements });
      return {
        provider: reply.provider,
        model: reply.model,
        synthesised: reply.synthesised,
        statements: reply.statements.map((statement) => ({
          text: statement.text,
          citations: statement.citations.map((citation) => ({ passage: citation.passage, quote: citation.quote })),
        })),
        gaps: reply.gaps,
      };
    },
  };
}
