import { createWorkerPool, isInlineText } from "@context-hub/common";
import type { NodeSummary } from "../model/entry-model.js";
import {
  buildOutline,
  resolveRange,
  type Outline,
  type OutlinePage,
  type RangeRequest,
  type ResolvedRange,
} from "./navigation.js";
import { moveInOutline, type OutlineStep } from "./outline-moves.js";

/** What the outline worker module does, by task name; inputs and results cross the thread boundary by copy. */
export interface OutlineTasks {
  /** The outline to `maxDepth`, or with `step` the nodes that move reaches. */
  outline(input: {
    text: string;
    summaries: NodeSummary[];
    maxDepth: number;
    page: OutlinePage;
    step?: OutlineStep | undefined;
  }): Outline;
  range(input: { text: string; range: RangeRequest; maxChars: number }): ResolvedRange;
}

/** The tasks themselves: what a worker runs, and what the calling thread runs for short texts. */
export const outlineTasks: OutlineTasks = {
  outline: ({ text, summaries, maxDepth, page, step }) =>
    step === undefined ? buildOutline(text, summaries, maxDepth, page) : moveInOutline(text, summaries, step, page),
  range: ({ text, range, maxChars }) => resolveRange(text, range, maxChars),
};

/**
 * Navigation's work on a stored text at read time (its outline, the span of
 * a range), off the thread that serves calls: a text of a million characters
 * can hold hundreds of thousands of headings, and parsing them on the store's
 * thread held every other caller for seconds. Each long text's work runs in a
 * worker thread under the store's text budget (TEXT_BUDGET_EXCEEDED, stage
 * "outline" or "range", past it); short texts are worked on at once.
 */
export interface OutlineWork {
  /**
   * `buildOutline` of the text, or with `step` `moveInOutline`: one page of it, so only that page crosses back from
   * the worker. Its INVALID_ARGUMENT errors come back as they are.
   */
  outline(
    text: string,
    summaries: readonly NodeSummary[],
    maxDepth: number,
    page: OutlinePage,
    step?: OutlineStep,
  ): Promise<Outline>;
  /** `resolveRange` of the text; its INVALID_ARGUMENT errors come back as they are. */
  range(text: string, range: RangeRequest, maxChars: number): Promise<ResolvedRange>;
  close(): Promise<void>;
}

export interface OutlineWorkOptions {
  /** Most worker threads at once. */
  workers: number;
  /** Most milliseconds one text's work may take in its worker. */
  budgetMs: number;
}

/** Navigation work on a pool of worker threads running outline-worker.js. */
export function createOutlineWork(options: OutlineWorkOptions): OutlineWork {
  const pool = createWorkerPool({
    name: "store-outline",
    script: new URL("./outline-worker.js", import.meta.url),
    maxWorkers: options.workers,
    maxOldGenerationSizeMb: 512,
  });
  const job = (stage: string) => ({ stage, budgetMs: options.budgetMs, budgetSetting: "STORE_TEXT_BUDGET_MS" });
  return {
    outline: async (text, summaries, maxDepth, page, step) =>
      isInlineText([text])
        ? outlineTasks.outline({ text, summaries: [...summaries], maxDepth, page, step })
        : pool.run<Outline>("outline", { text, summaries, maxDepth, page, step }, job("outline")),
    range: async (text, range, maxChars) =>
      // Character and line ranges need no outline: only a node range parses one.
      isInlineText([text]) || range.kind !== "node"
        ? outlineTasks.range({ text, range, maxChars })
        : pool.run<ResolvedRange>("range", { text, range, maxChars }, job("range")),
    close: () => pool.close(),
  };
}

/** The same work on the calling thread (tests and tools that run no workers). */
export const inlineOutlineWork: OutlineWork = {
  outline: async (text, summaries, maxDepth, page, step) =>
    outlineTasks.outline({ text, summaries: [...summaries], maxDepth, page, step }),
  range: async (text, range, maxChars) => outlineTasks.range({ text, range, maxChars }),
  close: async () => undefined,
};
