// The summarizer's text handling takes time linear in the text, on the inputs that make naive code quadratic.
import { test } from "node:test";
import {
  assertLinearGrowthForAll,
  framedRun,
  headingTexts,
  pathologicalTexts,
  type TextGenerator,
} from "@context-hub/common/testing";
import { builtinSummaryLength } from "./builtin-summary-provider.js";
import { summarizeExtractive } from "./extractive-summary.js";
import { cleanSummary, fitSummary, stripPreamble, stripReasoning, toOneParagraph } from "./summary-cleanup.js";
import { buildSectionPrompt, buildSummaryPrompt } from "./summary-prompts.js";
import { summaryTextTasks } from "./summary-text-work.js";

// Model answers an attacker could steer a model into giving, on top of the shared families.
const answers: readonly TextGenerator[] = [
  ...pathologicalTexts,
  { name: "preamble with spaces before a missing colon", generate: (length) => framedRun("## ", " ", "x", length) },
  {
    name: "unclosed reasoning after a closed one",
    generate: (length) => framedRun("<think>a</think>", "<thinking ", "", length),
  },
  {
    name: "reasoning blocks closed by another tag",
    generate: (length) => framedRun("", "<think>x</thought>", "", length),
  },
  { name: "closing tags with spaces", generate: (length) => framedRun("", "</think   ", "", length) },
  { name: "quoted answer", generate: (length) => framedRun('"', "a ", '"', length) },
];

/** Sentences of words that never repeat, so a heading made of them holds as many distinct stems as the text. */
function distinctWords(length: number): string {
  const parts: string[] = [];
  let total = 0;
  for (let index = 0; total < length; index++) {
    const word = `${index % 5 === 4 ? "Word" : "word"}${index.toString(36)}${index % 5 === 3 ? ". " : " "}`;
    parts.push(word);
    total += word.length;
  }
  return parts.join("").slice(0, length);
}

test("summarizeExtractive is linear for summaries and for section summaries focused on a heading as long as the text", () => {
  // The analysis of texts up to 64 KiB is remembered: a fresh first word per run makes every run analyse its text, as a new text does.
  let run = 0;
  const fresh = (text: string) => `${run++} ${text}`;
  // A first sentence longer than the word limit is cut at a word; a run of punctuation inside it once made that cut quadratic.
  const cutSentences: readonly TextGenerator[] = [".", "!", ",", "?"].map((mark) => ({
    name: `a run of ${mark} inside a sentence longer than the word limit`,
    generate: (length) => framedRun("Notes ", mark, ` x${mark}`.repeat(300), length),
  }));
  assertLinearGrowthForAll(
    "summarizeExtractive",
    (text) => summarizeExtractive(fresh(text), { source: "unspecified", ...builtinSummaryLength.summary }),
    [...pathologicalTexts, ...cutSentences],
  );
  assertLinearGrowthForAll(
    "summarizeExtractive with focus",
    (text) =>
      summarizeExtractive(fresh(text), {
        source: "user",
        focus: text.slice(0, text.length / 2),
        ...builtinSummaryLength.section,
      }),
    [
      pathologicalTexts.find((generator) => generator.name === "sentences") as TextGenerator,
      { name: "sentences of distinct words", generate: distinctWords },
    ],
  );
});

test("cleaning a model's answer is linear", () => {
  assertLinearGrowthForAll("stripReasoning", stripReasoning, answers);
  assertLinearGrowthForAll("stripPreamble", stripPreamble, answers);
  assertLinearGrowthForAll("toOneParagraph", toOneParagraph, answers);
  assertLinearGrowthForAll("cleanSummary", cleanSummary, answers);
  assertLinearGrowthForAll("fitSummary", (text) => fitSummary(text, 20_000), answers);
});

test("building prompts is linear", () => {
  assertLinearGrowthForAll(
    "buildSummaryPrompt",
    (text) => buildSummaryPrompt(text, "agent", 100_000),
    pathologicalTexts,
  );
  assertLinearGrowthForAll(
    "buildSectionPrompt",
    (text) => buildSectionPrompt({ heading: text, path: [text], text }, "agent", 100_000),
    pathologicalTexts,
  );
});

/**
 * What the built-in provider does for a text's node summaries, as one call: the outline's sections of at least 400
 * characters (SUMMARIZER_SECTION_MIN_CHARS's default), one extractive summary per section focused on its heading, and
 * each heading and summary fitted to its limit. A section holds its subsections, so nested headings give sections that
 * overlap.
 */
function nodeSummaries(text: string): string[] {
  const sections = summaryTextTasks.outline({ text, minChars: 400 });
  const summaries = summaryTextTasks.summarizeSections({
    sections: sections.map((section) => ({ text: text.slice(section.start, section.end), focus: section.heading })),
    options: { source: "agent", ...builtinSummaryLength.section },
  });
  return sections.map(
    (section, index) => `${fitSummary(section.heading, 500)} ${fitSummary(summaries[index] as string, 2_000)}`,
  );
}

test("node summaries and summaries are linear in the number, length and nesting of headings", () => {
  let run = 0;
  assertLinearGrowthForAll("node summaries", (text) => nodeSummaries(`${run++} ${text}`), headingTexts);
  assertLinearGrowthForAll(
    "summarizeExtractive",
    (text) => summarizeExtractive(`${run++} ${text}`, { source: "agent", ...builtinSummaryLength.summary }),
    headingTexts,
  );
  assertLinearGrowthForAll(
    "buildSectionPrompt with a path of long headings",
    (text) => buildSectionPrompt({ heading: text, path: [text, text, text, text, text, text], text }, "agent", 100_000),
    headingTexts,
  );
});
