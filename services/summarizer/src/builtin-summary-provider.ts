import type { SummaryProvider } from "./summary-provider.js";
import type { SummaryTextWork } from "./summary-text-work.js";

/** Model id of the built-in summaries: extractive TF-IDF centroid ranking with source cues. */
export const builtinSummaryModel = "builtin-extractive-v1";

/** Length bounds of the built-in summaries, in words. */
export const builtinSummaryLength = Object.freeze({
  summary: { targetWords: 100, maxWords: 250, maxSentences: 12 },
  section: { targetWords: 20, maxWords: 50, maxSentences: 2 },
});

/**
 * The network-free provider: extractive summaries (see `summarizeExtractive`),
 * computed in `work`'s worker threads under its time budget, never on the
 * thread that answers calls.
 */
export function createBuiltinSummaryProvider(work: SummaryTextWork): SummaryProvider {
  return {
    describe: () => ({ provider: "builtin", model: builtinSummaryModel }),
    summarize: ({ text, source }, signal) => work.summarize(text, { source, ...builtinSummaryLength.summary }, signal),
    summarizeSections: ({ sections, source }, signal) =>
      work.summarizeSections(
        sections.map((section) => ({ text: section.text, focus: section.heading })),
        { source, ...builtinSummaryLength.section },
        signal,
      ),
  };
}
