/**
 * Who wrote a text. User-written texts are summarised for intent and
 * constraints; agent-written ones for findings and decisions.
 */
export type TextSource = "user" | "agent" | "unspecified";

/** One Markdown section to summarise. */
export interface SectionText {
  heading: string;
  /** Headings from the top level down to this section. */
  path: string[];
  /** The section's text, heading line and subsections included. */
  text: string;
}

/**
 * A source of summaries. The built-in provider is extractive and runs
 * in-process; LLM providers (OpenAI-compatible, Anthropic, Ollama) implement
 * the same contract.
 */
export interface SummaryProvider {
  describe(): { provider: string; model: string };
  /**
   * One plain-text paragraph of about 100–250 words (less for short texts)
   * about the whole text. Thresholds are the caller's business: it is only
   * asked for texts that deserve a summary.
   */
  summarize(request: { text: string; source: TextSource }, signal?: AbortSignal): Promise<string>;
  /** One or two plain-text sentences per section, in order; "" where a section has nothing to summarise. */
  summarizeSections(request: { sections: SectionText[]; source: TextSource }, signal?: AbortSignal): Promise<string[]>;
}

/** A question and its numbered evidence (citations name passages by 1-based position). */
export interface AnswerRequest {
  question: string;
  passages: string[];
  maxStatements: number;
}
