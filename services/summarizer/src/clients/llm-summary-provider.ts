import { mapWithConcurrency, type HttpProviderClient } from "@context-hub/common";
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
  /** Most section requests in flight at once. */
  concurrency: number;
  /** Longest text put into one prompt; longer texts are cut (and the model told so). */
  maxInputChars: number;
}

/**
 * A SummaryProvider over a chat model: one request for the summary, one per
 * section for node summaries (at most `concurrency` at once), each answer
 * stripped of reasoning and preamble and made one paragraph. An answer with
 * nothing left is a PROVIDER_ERROR, never an empty summary stored in silence.
 */
export function createLlmSummaryProvider(options: LlmSummaryProviderOptions): SummaryProvider {
  const { provider, model, api, concurrency, maxInputChars } = options;
  const finish = (answer: ChatAnswer, what: string): string => {
    const summary = cleanSummary(answer.text);
    if (summary !== "") return summary;
    const reasons = [...(hasReasoning(answer.text) ? ["the answer held only reasoning"] : []), ...(answer.truncated ? ["the model stopped at SUMMARIZER_MAX_TOKENS; raise it"] : [])];
    throw api.client.malformed(`no ${what} text in the answer${reasons.length === 0 ? "" : ` (${reasons.join("; ")})`}`);
  };
  return {
    describe: () => ({ provider, model }),
    async summarize({ text, source }, signal) {
      return finish(await api.complete(buildSummaryPrompt(text, source, maxInputChars), signal), "summary");
    },
    async summarizeSections({ sections, source }, signal) {
      return mapWithConcurrency(
        sections,
        concurrency,
        async (section, _index, sectionSignal) => finish(await api.complete(buildSectionPrompt(section, source, maxInputChars), sectionSignal), `summary for section "${section.heading}"`),
        signal,
      );
    },
  };
}
