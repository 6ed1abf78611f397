/**
 * Answers from evidence: the contract the summarizer's Answer call serves,
 * the built-in extractive answer (no network) and the answer a chat model
 * writes under instructions that forbid uncited claims. Neither is trusted
 * to cite truthfully: the caller checks every citation against the evidence.
 */
import { extractiveAnswerModel, type DraftAnswer } from "@context-hub/text";
import type { ChatApi } from "./clients/llm-summary-provider.js";
import { buildAnswerPrompt, parseModelAnswer } from "./answer-prompts.js";
import type { SummaryTextWork } from "./summary-text-work.js";
import type { AnswerRequest } from "./summary-provider.js";

export interface AnswerProvider {
  describe(): { provider: string; model: string; synthesised: boolean };
  answer(request: AnswerRequest, signal?: AbortSignal): Promise<DraftAnswer>;
}

/** Model id of the built-in answers: the evidence's best-supported sentences, each citing itself. */
export const builtinAnswerModel = extractiveAnswerModel;

/** The network-free answer (see `answerExtractively`), computed in `work`'s worker threads under its budget. */
export function createBuiltinAnswerProvider(work: Pick<SummaryTextWork, "answer">): AnswerProvider {
  return {
    describe: () => ({ provider: "builtin", model: builtinAnswerModel, synthesised: false }),
    answer: ({ question, passages, maxStatements }, signal) => work.answer(question, passages, maxStatements, signal),
  };
}

/**
 * The answer a chat model writes from the fenced evidence (see
 * `buildAnswerPrompt`), read back as JSON (see `parseModelAnswer`): an
 * answer that is not the JSON asked for is a PROVIDER_ERROR naming what was
 * wrong, never an empty answer. At most `maxStatements` statements are kept.
 */
export function createLlmAnswerProvider(options: {
  provider: string;
  model: string;
  api: ChatApi;
  maxInputChars: number;
}): AnswerProvider {
  const { provider, model, api, maxInputChars } = options;
  return {
    describe: () => ({ provider, model, synthesised: true }),
    async answer(request, signal) {
      const reply = await api.complete(buildAnswerPrompt(request, maxInputChars), signal);
      const parsed = parseModelAnswer(reply.text);
      if (typeof parsed === "string")
        throw api.client.malformed(
          `the answer is not the JSON asked for (${parsed})${reply.truncated ? "; the model stopped at SUMMARIZER_MAX_TOKENS, raise it" : ""}`,
        );
      return { statements: parsed.statements.slice(0, request.maxStatements), gaps: parsed.gaps };
    },
  };
}
