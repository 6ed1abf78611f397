import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import { summarizeExtractive } from "./extractive-summary.js";
import type { SummaryProvider } from "./summary-provider.js";

/** Model id of the built-in summaries: extractive TF-IDF centroid ranking with source cues. */
export const builtinSummaryModel = "builtin-extractive-v1";

/** Length bounds of the built-in summaries, in words. */
export const builtinSummaryLength = Object.freeze({
  summary: { targetWords: 100, maxWords: 250, maxSentences: 12 },
  section: { targetWords: 20, maxWords: 50, maxSentences: 2 },
});

/** The network-free provider: extractive summaries (see `summarizeExtractive`). */
export function createBuiltinSummaryProvider(): SummaryProvider {
  return {
    describe: () => ({ provider: "builtin", model: builtinSummaryModel }),
    async summarize({ text, source }) {
      return summarizeExtractive(text, { source, ...builtinSummaryLength.summary });
    },
    async summarizeSections({ sections, source }, signal) {
      const summaries: string[] = [];
      for (const section of sections) {
        // Many large sections add up; let other calls and health checks through between them.
        if (summaries.length > 0 && summaries.length % 32 === 0) {
          await yieldToEventLoop();
          signal?.throwIfAborted();
        }
        summaries.push(summarizeExtractive(section.text, { source, focus: section.heading, ...builtinSummaryLength.section }));
      }
      return summaries;
    },
  };
}
