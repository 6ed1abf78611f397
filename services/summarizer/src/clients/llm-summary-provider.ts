import { createConcurrencyLimiter, mapWithConcurrency, type HttpProviderClient } from "@context-hub/common";
import { cleanSummary, hasReasoning } from "../summary-cleanup.js";
import { buildSectionPrompt, buildSummaryPrompt, type ChatPrompt } from "../summary-prompts.js";
import type { SummaryProvider } from "../summary-provider.js";

/** A model's answer to one prompt. */
export interface ChatAnswer {
  text: string;
  /** The model stopped at the token limit (finish_reason "length", stop_reason "max_tokens"). */
  truncated: boolean;
}

/** One chat API (OpenAI-compatible, Anthropic, Ollama): sends a prompt, returns the answer's text. */
export interface ChatApi {
  /** The client the API sends through; its errors name provider and model. */
  client: HttpProviderClient;
  complete(prompt: ChatPrompt, signal: AbortSignal | undefined): Promise<ChatAnswer>;
}

export interface LlmSummaryProviderOptions {
  provider: string;
  model: string;
  api: ChatApi;
  /** Most requests in flight at once from this provider, summaries and sections together (one provider serves the whole worker). */
  concurrency: number;
  /** Longest text put into one prompt; longer texts are cut (and the model told so). */
  maxInputChars: number;
}

/**
 * A SummaryProvider over a chat model: one request for the summary, one per
 * section for node summaries, each answer stripped of reasoning and preamble
 * and made one paragraph. At most `concurrency` requests are in flight across
 * all calls, however many texts arrive at once; a waiting summary starts
 * before any waiting section, and sections hold at most half the places,
 * since summaries are mandatory and node summaries best effort. An answer with nothing left is a PROVIDER_ERROR,
 * never an empty summary stored in silence.
 */
export function createLlmSummaryProvider(options: LlmSummaryProviderOptions): SummaryProvider {
  const { provider, model, api, concurrency, maxInputChars } = options;
  // Sections never hold more than half the places, so a long document's sections cannot keep summaries waiting.
  const limiter = createConcurrencyLimiter(concurrency, { lowLimit: Math.max(1, Math.floor(concurrency / 2)) });
  const finish = (answer: ChatAnswer, what: string): string => {
    const summary = cleanSummary(answer.text);
    if (summary !== "") return summary;
    const reasons = [
      ...(hasReasoning(answer.text) ? ["the answer held only reasoning"] : []),
      ...(answer.truncated ? ["the model stopped at SUMMARIZER_MAX_TOKENS; raise it"] : []),
    ];
    throw api.client.malformed(
      `no ${what} text in the answer${reasons.length === 0 ? "" : ` (${reasons.join("; ")})`}`,
    );
  };
  return {
    describe: () => ({ provider, model }),
    async summarize({ text, source }, signal) {
      const answer = await limiter.run(() => api.complete(buildSummaryPrompt(text, source, maxInputChars), signal), {
        priority: "high",
        signal,
      });
      return finish(answer, "summary");
    },
    async summarizeSections({ sections, source }, signal) {
      // Per text, no more sections start than the limiter could run, so one long document does not fill its queue.
      return mapWithConcurrency(
        sections,
        concurrency,
        async (section, _index, sectionSignal) => {
          const answer = await limiter.run(
            () => api.complete(buildSectionPrompt(section, source, maxInputChars), sectionSignal),
            { priority: "low", signal: sectionSignal },
          );
          return finish(answer, `summary for section "${section.heading}"`);
        },
        signal,
      );
    },
  };
}
