import { createWorkerPool } from "@context-hub/common";
import type { EmbedTextOptions, TextChunk } from "@context-hub/text";
import type { EmbeddingBudget } from "./embedding-pace.js";

/** What the embedder's worker module does, by task name; inputs and results cross the thread boundary by copy. */
export interface EmbedderTextTasks {
  chunk(input: { texts: string[]; size: number; overlap: number }): TextChunk[][];
  /** Refused early when its pace says it cannot finish within `budget` (embedding-pace.ts). */
  embed(input: { texts: string[]; layout: EmbedTextOptions; budget: EmbeddingBudget }): Float32Array[];
}

/** What every embedder worker starts with. */
export interface EmbedderWorkerData {
  /** The word-vector cache the built-in provider reads; undefined when another provider embeds. */
  cacheDir: string | undefined;
}

/**
 * The embedder's CPU-heavy work on caller text, each call in a worker thread
 * under `budgetMs` (see `createWorkerPool`): a call that takes longer fails
 * with TEXT_BUDGET_EXCEEDED naming its stage, and the thread answering calls
 * never runs it.
 */
export interface EmbedderTextWork {
  /** `chunkText` of every text (stage "chunk"). */
  chunk(texts: string[], options: { size: number; overlap: number }, signal?: AbortSignal): Promise<TextChunk[][]>;
  /** `embedText` of every text over the built-in word vectors in the model's `layout` (stage "embed"); only with a `cacheDir`. */
  embed(texts: string[], layout: EmbedTextOptions, signal?: AbortSignal): Promise<Float32Array[]>;
  /** Starts a worker (loading the word vectors, with a `cacheDir`) and resolves once it can take calls. */
  warm(): Promise<void>;
  close(): Promise<void>;
}

export interface EmbedderTextWorkOptions extends EmbedderWorkerData {
  /** Most worker threads at once. Each holds its own copy of the word vectors (about 145 MB) with the built-in provider. */
  workers: number;
  /** Most milliseconds one call's work may take in its worker. */
  budgetMs: number;
}

/** Embedder text work on a pool of worker threads running embedder-worker.js. */
export function createEmbedderTextWork(options: EmbedderTextWorkOptions): EmbedderTextWork {
  const pool = createWorkerPool({
    name: "embedder",
    script: new URL("./embedder-worker.js", import.meta.url),
    maxWorkers: options.workers,
    workerData: { cacheDir: options.cacheDir } satisfies EmbedderWorkerData,
    maxOldGenerationSizeMb: 512,
  });
  const job = (stage: string, signal: AbortSignal | undefined) => ({
    stage,
    budgetMs: options.budgetMs,
    budgetSetting: "EMBEDDER_TEXT_BUDGET_MS",
    signal,
  });
  return {
    chunk: (texts, { size, overlap }, signal) => pool.run("chunk", { texts, size, overlap }, job("chunk", signal)),
    embed: (texts, layout, signal) =>
      pool.run(
        "embed",
        { texts, layout, budget: { budgetMs: options.budgetMs, budgetSetting: "EMBEDDER_TEXT_BUDGET_MS" } },
        job("embed", signal),
      ),
    warm: () => pool.warm(),
    close: () => pool.close(),
  };
}
