// The summarizer's gRPC transport: translates SummarizerService messages to and from the domain.
import { setMaxListeners } from "node:events";
import {
  answerLimits,
  createChildAbortController,
  observeProviderRequest,
  invalidArgument,
  isContextHubError,
  sourceFromProto,
  type ServiceImplementation,
} from "@context-hub/common";
import type { summarizerV1 } from "@context-hub/proto";
import type { SectionSummary, Summarizer } from "./summarizer.js";
import type { TextSource } from "./summary-provider.js";
import type { AnswerProvider } from "./answer-provider.js";

/** The most texts one Summarize call takes: a batch store's limit. */
export const maxSummarizeInputs = 100;

/** The SummarizerService handlers over a summarizer. */
export function createSummarizerHandlers(
  summarizer: Summarizer,
  answers: AnswerProvider,
): ServiceImplementation<typeof summarizerV1.SummarizerService> {
  return {
    async answer(request, context) {
      checkAnswerRequest(request);
      const { provider, model, synthesised } = answers.describe();
      const maxStatements = request.maxStatements === 0 ? answerLimits.defaultStatements : request.maxStatements;
      const draft = await observeProviderRequest(provider, "answer", () =>
        answers.answer({ question: request.question, passages: request.passages, maxStatements }, context.signal),
      );
      return { provider, model, synthesised, statements: draft.statements, gaps: draft.gaps };
    },
    async describe() {
      return summarizer.describe();
    },
    async summarize(request, context) {
      if (request.inputs.length > maxSummarizeInputs) {
        throw invalidArgument(
          `inputs: at most ${maxSummarizeInputs} texts per call (got ${request.inputs.length})`,
          "split the texts over several calls",
        );
      }
      // Every input is checked before any provider is asked: a bad one fails the call having cost nothing.
      const inputs = request.inputs.map((input, index) => {
        try {
          summarizer.checkText(input.text);
          const source: TextSource = sourceFromProto(input.source, "source") ?? "unspecified";
          return { text: input.text, source };
        } catch (error) {
          throw isContextHubError(error) ? invalidArgument(`inputs[${index}]: ${error.message}`, error.remedy) : error;
        }
      });
      // Once the call is answered (or one text's summary failed it), the requests still running or waiting for a place
      // at the provider are no longer wanted.
      const call = createChildAbortController(context.signal);
      // Every text's summary and sections watch the call's signal: a few listeners per text, by design.
      setMaxListeners(inputs.length * 4 + 10, call.signal);
      try {
        const summaries = await Promise.all(
          inputs.map(async ({ text, source }) => {
            const [summary, sections] = await Promise.all([
              summarizer.summarize(text, source, call.signal),
              sectionsWithin(summarizer, text, source, request.sectionBudgetMs, call.signal),
            ]);
            return { summary, sections: sections.map(toNodeSummary) };
          }),
        );
        return { summaries };
      } finally {
        call.release();
        call.abort();
      }
    },
  };
}

/** Refuses an Answer request outside `answerLimits`, naming the field, before any provider is asked. */
function checkAnswerRequest(request: summarizerV1.AnswerRequest): void {
  const question = request.question.trim();
  if (question === "" || question.length > answerLimits.questionChars)
    throw invalidArgument(
      `question: 1 to ${answerLimits.questionChars} characters (got ${question.length})`,
      "ask a shorter question",
    );
  if (request.passages.length === 0 || request.passages.length > answerLimits.passages)
    throw invalidArgument(
      `passages: 1 to ${answerLimits.passages} (got ${request.passages.length})`,
      "send fewer passages of evidence",
    );
  const long = request.passages.findIndex((passage) => passage.length > answerLimits.passageChars);
  if (long >= 0)
    throw invalidArgument(
      `passages[${long}]: at most ${answerLimits.passageChars} characters`,
      "cut the passage to the part that matters",
    );
  if (request.maxStatements > answerLimits.maxStatements)
    throw invalidArgument(
      `max_statements: at most ${answerLimits.maxStatements} (got ${request.maxStatements})`,
      "ask for fewer statements",
    );
}

/**
 * A text's node summaries, or none when they fail or are not done within
 * `budgetMs` (0: none asked for). Best effort by design: an entry is whole
 * without them, so they never fail or hold up the call beyond the budget.
 */
async function sectionsWithin(
  summarizer: Summarizer,
  text: string,
  source: TextSource,
  budgetMs: number,
  signal: AbortSignal,
): Promise<SectionSummary[]> {
  if (budgetMs === 0) return [];
  // A timer of our own, not AbortSignal.timeout: a timeout signal that only AbortSignal.any refers to can be garbage
  // collected before it fires (Node 20), and the sections would then wait for the caller's whole deadline.
  const budget = createChildAbortController(signal);
  const timer = setTimeout(
    () => budget.abort(new DOMException(`node summaries took longer than ${budgetMs} ms`, "TimeoutError")),
    budgetMs,
  );
  const expired = new Promise<SectionSummary[]>((resolve) =>
    budget.signal.addEventListener("abort", () => resolve([]), { once: true }),
  );
  try {
    return await Promise.race([summarizer.summarizeSections(text, source, budget.signal).catch(() => []), expired]);
  } finally {
    clearTimeout(timer);
    budget.release();
    // Sections still running once the answer is decided are no longer wanted.
    budget.abort();
  }
}

const toNodeSummary = (section: SectionSummary) => ({
  nodeId: section.nodeId,
  heading: section.heading,
  level: section.level,
  span: { start: section.start, end: section.end },
  summary: section.summary,
});
