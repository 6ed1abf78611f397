import { createWorkerPool, isInlineText, type WorkerPool } from "@context-hub/common";
import { answerExtractively, parseOutline, type DraftAnswer, type OutlineSection } from "@context-hub/text";
import { summarizeExtractive, type ExtractiveOptions } from "./extractive-summary.js";

/** What the summarizer's worker module does, by task name; inputs and results cross the thread boundary by copy. */
export interface SummaryTextTasks {
  summarize(input: { text: string; options: ExtractiveOptions }): string;
  summarizeSections(input: {
    sections: { text: string; focus: string }[];
    options: Omit<ExtractiveOptions, "focus">;
  }): string[];
  outline(input: { text: string; minChars: number }): OutlineSection[];
  answer(input: { question: string; passages: string[]; maxStatements: number }): DraftAnswer;
}

/**
 * The summarizer's CPU-heavy work on caller text, each call in a worker
 * thread under `budgetMs` (see `createWorkerPool`): a text that takes longer
 * fails with TEXT_BUDGET_EXCEEDED naming the stage, and the thread answering
 * calls never runs it. Short texts (see `isInlineText`) are worked on at once.
 */
export interface SummaryTextWork {
  /** The extractive summary of `text` (stage "summarize"). */
  summarize(text: string, options: ExtractiveOptions, signal?: AbortSignal): Promise<string>;
  /** One extractive summary per section, focused on its heading (stage "node summaries"). */
  summarizeSections(
    sections: { text: string; focus: string }[],
    options: Omit<ExtractiveOptions, "focus">,
    signal?: AbortSignal,
  ): Promise<string[]>;
  /** The heading sections of `text` (see `parseOutline`) spanning at least `minChars` (stage "outline"). */
  outline(text: string, minChars: number, signal?: AbortSignal): Promise<OutlineSection[]>;
  /** The extractive answer to `question` from `passages` (see `answerExtractively`; stage "answer"). */
  answer(question: string, passages: string[], maxStatements: number, signal?: AbortSignal): Promise<DraftAnswer>;
  /** Readiness: a worker has started. */
  warm(): Promise<void>;
  close(): Promise<void>;
}

export interface SummaryTextWorkOptions {
  /** Most worker threads at once. */
  workers: number;
  /** Most milliseconds one call's work may take in its worker. */
  budgetMs: number;
}

/** The setting that holds the budget, named in the remedy of a budget error. */
const budgetSetting = "SUMMARIZER_TEXT_BUDGET_MS";

/** The tasks themselves: what a worker runs, and what the calling thread runs for short texts. */
export const summaryTextTasks: SummaryTextTasks = {
  summarize: ({ text, options }) => summarizeExtractive(text, options),
  summarizeSections: ({ sections, options }) =>
    sections.map((section) => summarizeExtractive(section.text, { ...options, focus: section.focus })),
  outline: ({ text, minChars }) => parseOutline(text).filter((section) => section.end - section.start >= minChars),
  answer: ({ question, passages, maxStatements }) => answerExtractively(question, passages, { maxStatements }),
};

/** Summarizer text work on a pool of worker threads running summary-worker.js. */
export function createSummaryTextWork(options: SummaryTextWorkOptions): SummaryTextWork {
  const pool: WorkerPool = createWorkerPool({
    name: "summarizer",
    script: new URL("./summary-worker.js", import.meta.url),
    maxWorkers: options.workers,
    maxOldGenerationSizeMb: 512,
  });
  const run = async <K extends keyof SummaryTextTasks>(
    task: K,
    stage: string,
    input: Parameters<SummaryTextTasks[K]>[0],
    texts: string[],
    signal: AbortSignal | undefined,
  ) => {
    if (isInlineText(texts))
      return (summaryTextTasks[task] as (input: Parameters<SummaryTextTasks[K]>[0]) => ReturnType<SummaryTextTasks[K]>)(
        input,
      );
    return pool.run<ReturnType<SummaryTextTasks[K]>>(task, input, {
      stage,
      budgetMs: options.budgetMs,
      budgetSetting,
      signal,
    });
  };
  return {
    summarize: (text, extractive, signal) =>
      run("summarize", "summarize", { text, options: extractive }, [text], signal),
    summarizeSections: (sections, extractive, signal) =>
      run(
        "summarizeSections",
        "node summaries",
        { sections, options: extractive },
        sections.map((section) => section.text),
        signal,
      ),
    outline: (text, minChars, signal) => run("outline", "outline", { text, minChars }, [text], signal),
    answer: (question, passages, maxStatements, signal) =>
      run("answer", "answer", { question, passages, maxStatements }, [question, ...passages], signal),
    warm: () => pool.warm(),
    close: () => pool.close(),
  };
}
