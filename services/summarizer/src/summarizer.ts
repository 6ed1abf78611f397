import {
  headingCharLimit,
  invalidArgument,
  observeProviderRequest,
  providerError,
  summaryCharLimit,
} from "@context-hub/common";
import { fitSummary } from "./summary-cleanup.js";
import type { SummaryProvider, TextSource } from "./summary-provider.js";
import type { SummaryTextWork } from "./summary-text-work.js";

export interface SummarizerOptions {
  provider: SummaryProvider;
  /** Where the outline of a text is parsed: off the thread that answers calls, under a time budget. */
  work: Pick<SummaryTextWork, "outline">;
  /** Texts shorter than this many characters are their own summary: the summary is "". */
  minChars: number;
  /** Sections shorter than this many characters (heading line and subsections included) get no node summary. */
  sectionMinChars: number;
  /** Longest text accepted, in UTF-16 code units. */
  maxTextChars: number;
}

/** A summarised Markdown section; offsets are UTF-16 code units into the text (end exclusive). */
export interface SectionSummary {
  nodeId: string;
  heading: string;
  level: number;
  start: number;
  end: number;
  summary: string;
}

export interface Summarizer {
  describe(): { provider: string; model: string; minChars: number };
  /**
   * Checks that `text` can be summarised at all, asking no provider.
   *
   * @throws ContextHubError INVALID_ARGUMENT when the text exceeds `maxTextChars`.
   */
  checkText(text: string): void;
  /**
   * The summary of a text, or "" when it is shorter than `minChars`; never
   * longer than `summaryCharLimit`, whatever the provider answers (a longer
   * answer is cut at a word, with "…").
   *
   * @throws ContextHubError INVALID_ARGUMENT when the text exceeds `maxTextChars`.
   */
  summarize(text: string, source: TextSource, signal?: AbortSignal): Promise<string>;
  /**
   * One short summary per heading section (see `parseOutline`, whose node ids
   * and spans it carries) at least `sectionMinChars` long, in document order;
   * sections with nothing to summarise are left out. Each summary is cut to
   * `summaryCharLimit` like the text's, each heading to `headingCharLimit`.
   *
   * @throws ContextHubError INVALID_ARGUMENT when the text exceeds `maxTextChars`;
   *   TEXT_BUDGET_EXCEEDED when parsing its outline takes longer than the work's budget.
   */
  summarizeSections(text: string, source: TextSource, signal?: AbortSignal): Promise<SectionSummary[]>;
}

/** The summarizer's domain: size policy and outline handling around a provider. */
export function createSummarizer(options: SummarizerOptions): Summarizer {
  const { provider, work, minChars, sectionMinChars, maxTextChars } = options;
  const checkSize = (text: string) => {
    if (text.length > maxTextChars)
      throw invalidArgument(
        `text has ${text.length} characters; at most ${maxTextChars} are accepted`,
        "shorten the text or split it into several entries",
      );
  };
  return {
    describe: () => ({ ...provider.describe(), minChars }),
    checkText: checkSize,
    async summarize(text, source, signal) {
      checkSize(text);
      if (text.length < minChars) return "";
      const summary = await observeProviderRequest(provider.describe().provider, "summarize", () =>
        provider.summarize({ text, source }, signal),
      );
      return fitSummary(summary, summaryCharLimit);
    },
    async summarizeSections(text, source, signal) {
      checkSize(text);
      const sections = await work.outline(text, sectionMinChars, signal);
      if (sections.length === 0) return [];
      const { provider: name, model } = provider.describe();
      const summaries = await observeProviderRequest(name, "summarize_sections", () =>
        provider.summarizeSections(
          {
            sections: sections.map((section) => ({
              heading: section.heading,
              path: section.path,
              text: text.slice(section.start, section.end),
            })),
            source,
          },
          signal,
        ),
      );
      if (summaries.length !== sections.length) {
        throw providerError(
          { provider: name, operation: "section summaries", model },
          `${summaries.length} summaries for ${sections.length} sections`,
          {
            remedy: "check that SUMMARIZER_PROVIDER and SUMMARIZER_BASE_URL point at a server speaking this API",
          },
        );
      }
      return sections
        .map((section, index) => ({
          nodeId: section.nodeId,
          heading: fitSummary(section.heading, headingCharLimit),
          level: section.level,
          start: section.start,
          end: section.end,
          summary: fitSummary((summaries[index] as string).trim(), summaryCharLimit),
        }))
        .filter((section) => section.summary !== "");
    },
  };
}
