import { parseArgs } from "node:util";
import { contentHash, createLogger, envBoolean } from "@context-hub/common";
import {
  createEmbedder,
  createEmbedderTextWork,
  createEmbeddingProvider,
  loadEmbedderConfig,
  type Embedder,
} from "@context-hub/embedder";
import {
  backfillMemoryMirrors,
  countUnmirroredMemories,
  isMemoryDataDir,
  loadStoreConfig,
  openDatabase,
  planReembedding,
  type GeneratedInput,
  type SqlDatabase,
} from "@context-hub/store";
import {
  createSummarizer,
  createSummaryProvider,
  createSummaryTextWork,
  loadSummarizerConfig,
  type Summarizer,
} from "@context-hub/summarizer";
import { count, createProgressBar, stderrSink, type ProgressSink } from "./progress-bar.js";
import { readLiveRuntime } from "./runtime-file.js";
import { batchTextBudgetMs } from "./batch-text-budget.js";

export const backfillMemoriesUsage = `Usage: context-hub backfill-memories [--batch-size <n>] [--dry-run]

  Gives every memory stored before mirror entries existed (schema 20) the mirror
  entry through which search finds it, as its next put would: its value's chunks,
  embeddings and summary are generated first (with this process's embedder and
  summarizer settings, which must be the server's: EMBEDDER_*, SUMMARIZER_*,
  CONTEXT_HUB_SUMMARIES), then each batch commits in one transaction. A mirror is
  never stored without its embeddings, a memory put or deleted meanwhile is left
  as its put or delete made it, and running it again finds nothing to do. Use the
  store's database settings (DATABASE_URL, or STORE_DATA_DIR for PGlite, whose
  server must be stopped). An interrupted run can simply be run again.
  --batch-size <n>  memories per generation call and per transaction (default 32)
  --dry-run         count the memories without a mirror and change nothing
`;

const defaultBatchSize = 32;

export interface BackfillMemoriesCommandOptions {
  /** Progress and notes (stderr by default). */
  progress?: ProgressSink;
  /** Milliseconds between progress lines when the sink is not a terminal (default 5 s). */
  progressLineMs?: number;
  /** Stops after the batch in flight (the command wires SIGINT and SIGTERM to it). */
  signal?: AbortSignal;
}

/** The command's arguments: "help" for `--help`, else the batch size and whether this is a dry run. */
function parseBackfillArgs(args: string[]): "help" | { batchSize: number; dryRun: boolean } {
  const { values } = parseArgs({
    args,
    options: { "batch-size": { type: "string" }, "dry-run": { type: "boolean" }, help: { type: "boolean" } },
    strict: true,
  });
  if (values.help) return "help";
  const rawBatch = values["batch-size"];
  if (rawBatch !== undefined && (!/^\d{1,4}$/.test(rawBatch) || Number(rawBatch) < 1 || Number(rawBatch) > 1_000)) {
    throw new Error(`--batch-size must be a whole number from 1 to 1000 (got "${rawBatch}")`);
  }
  return {
    batchSize: rawBatch === undefined ? defaultBatchSize : Number(rawBatch),
    dryRun: values["dry-run"] ?? false,
  };
}

/**
 * Every configuration the command needs, read before anything is opened so
 * a bad setting changes nothing; refuses an in-memory store and a PGlite
 * data directory a running Context Hub holds.
 */
function loadBackfillConfigs(env: NodeJS.ProcessEnv) {
  const storeConfig = loadStoreConfig({ ...env, STORE_HOST: "127.0.0.1", STORE_PORT: "0", STORE_OPS_PORT: "-1" });
  const embedderConfig = loadEmbedderConfig({ ...env, EMBEDDER_PORT: "0", EMBEDDER_OPS_PORT: "-1" });
  const summarizerConfig = loadSummarizerConfig({ ...env, SUMMARIZER_PORT: "0", SUMMARIZER_OPS_PORT: "-1" });
  const summaries = envBoolean(true).parse(env.CONTEXT_HUB_SUMMARIES);
  const { url, dataDir } = storeConfig.database;
  if (url === "" && isMemoryDataDir(dataDir))
    throw new Error("STORE_DATA_DIR is memory://: there are no stored memories to give mirror entries");
  if (url === "") {
    const live = readLiveRuntime(dataDir);
    if (live !== undefined) {
      throw new Error(
        `Context Hub is running on ${dataDir} (pid ${live.pid}, ${live.url}). Stop it first (Ctrl-C where it runs), then run \`context-hub backfill-memories\` again: ` +
          "PGlite serves one process at a time.",
      );
    }
  }
  return { storeConfig, embedderConfig, summarizerConfig, summaries };
}

/**
 * Generation as the gateway's write path does it for a memory's value: the
 * embedder's chunks and vectors, and (when summaries are on) the summary and
 * node summaries of an agent's text.
 */
function createGenerate(
  embedder: Embedder,
  summarizer: Summarizer | undefined,
): (texts: string[]) => Promise<GeneratedInput[]> {
  return async (texts) => {
    const [documents, summaries] = await Promise.all([
      embedder.embedDocuments(texts),
      Promise.all(
        texts.map(async (text) =>
          summarizer === undefined
            ? { summary: "", sections: [] }
            : {
                summary: await summarizer.summarize(text, "agent"),
                // Best effort, as for a put: a text is whole without them.
                sections: await summarizer.summarizeSections(text, "agent").catch(() => []),
              },
        ),
      ),
    ]);
    const { model, dimension } = embedder.describe();
    return texts.map((text, index) => ({
      embeddingModel: model,
      embeddingDimension: dimension,
      chunks: documents[index]!.map((chunk) => ({
        ordinal: chunk.ordinal,
        span: { start: chunk.start, end: chunk.end },
        vector: [...chunk.vector],
      })),
      summary: summaries[index]!.summary,
      nodeSummaries: summaries[index]!.sections.map((section) => ({
        nodeId: section.nodeId,
        heading: section.heading,
        level: section.level,
        span: { start: section.start, end: section.end },
        summary: section.summary,
      })),
      textHash: contentHash(text),
    }));
  };
}

/** `context-hub backfill-memories …`; returns the process exit code. */
export async function runBackfillMemoriesCommand(
  args: string[],
  env: NodeJS.ProcessEnv,
  out: (text: string) => void,
  options: BackfillMemoriesCommandOptions = {},
): Promise<number> {
  const parsed = parseBackfillArgs(args);
  if (parsed === "help") {
    out(backfillMemoriesUsage);
    return 0;
  }
  const progressSink = options.progress ?? stderrSink();
  const logger = createLogger("backfill-memories", env.LOG_LEVEL ?? "warn");
  const { storeConfig, embedderConfig, summarizerConfig, summaries } = loadBackfillConfigs(env);
  const db = await openDatabase(storeConfig.database, logger);
  try {
    const pending = await countUnmirroredMemories(db);
    if (pending === 0) {
      out("Every live memory has its mirror entry; nothing to do.\n");
      return 0;
    }
    out(`${count(pending)} memory value(s) without a mirror entry.\n`);
    if (parsed.dryRun) {
      out("Nothing was changed (--dry-run).\n");
      return 0;
    }
    return await generateAndBackfill(db, out, {
      ...parsed,
      pending,
      embedderConfig,
      summarizerConfig: summaries ? summarizerConfig : undefined,
      logger,
      progressSink,
      progressLineMs: options.progressLineMs ?? 5_000,
      signal: options.signal,
    });
  } finally {
    await db.close();
  }
}

interface BackfillRun {
  batchSize: number;
  pending: number;
  embedderConfig: ReturnType<typeof loadEmbedderConfig>;
  /** Undefined when summaries are off. */
  summarizerConfig: ReturnType<typeof loadSummarizerConfig> | undefined;
  logger: ReturnType<typeof createLogger>;
  progressSink: ProgressSink;
  progressLineMs: number;
  signal: AbortSignal | undefined;
}

/** Starts the embedder and summarizer in this process, backfills, and tells `out` how it went; returns the exit code. */
async function generateAndBackfill(db: SqlDatabase, out: (text: string) => void, run: BackfillRun): Promise<number> {
  const { embedderConfig, summarizerConfig, logger } = run;
  const embedderWork = createEmbedderTextWork({
    workers: embedderConfig.textWorkers,
    budgetMs: batchTextBudgetMs(embedderConfig.textBudgetMs),
    cacheDir: embedderConfig.provider === "builtin" ? embedderConfig.cacheDir : undefined,
  });
  const summaryWork =
    summarizerConfig === undefined
      ? undefined
      : createSummaryTextWork({
          workers: summarizerConfig.textWorkers,
          budgetMs: batchTextBudgetMs(summarizerConfig.textBudgetMs),
        });
  const provider = createEmbeddingProvider(embedderConfig, embedderWork, logger);
  try {
    await provider.warm();
    const { model, dimension } = provider.describe();
    // The mirrors' chunks join the stored ones: in another space, semantic search would not find them.
    const spaces = await planReembedding(db, { model, dimension });
    if (spaces.pending > 0) {
      const other = spaces.from.map((space) => `${space.model} (${space.dimension} dimensions)`).join(", ");
      throw new Error(
        `the stored chunks are embedded with ${other}, not the configured ${model} (${dimension} dimensions): run this with the server's embedder settings, or \`context-hub reembed\` first`,
      );
    }
    const embedder = createEmbedder({
      provider,
      work: embedderWork,
      chunkSize: embedderConfig.chunkSize,
      chunkOverlap: embedderConfig.chunkOverlap,
      maxTextChars: embedderConfig.maxTextChars,
    });
    const summarizer =
      summarizerConfig === undefined || summaryWork === undefined
        ? undefined
        : createSummarizer({
            provider: createSummaryProvider(summarizerConfig, summaryWork, logger),
            work: summaryWork,
            minChars: summarizerConfig.minChars,
            sectionMinChars: summarizerConfig.sectionMinChars,
            maxTextChars: summarizerConfig.maxTextChars,
          });
    const progress = createProgressBar(run.progressSink, "mirrored", run.progressLineMs);
    let done = 0;
    const result = await backfillMemoryMirrors(db, {
      generate: createGenerate(embedder, summarizer),
      batchSize: run.batchSize,
      onBatch: (mirrored) => {
        done += mirrored;
        progress.update({ done, total: run.pending, written: done });
      },
      ...(run.signal === undefined ? {} : { signal: run.signal }),
    });
    progress.finish();
    const skipped =
      result.skipped === 0 ? "" : ` ${count(result.skipped)} were put or deleted meanwhile and need none.`;
    if (result.interrupted) {
      out(
        `Stopped after writing ${count(result.mirrored)} mirror entr(ies);${skipped} run \`context-hub backfill-memories\` again to continue.\n`,
      );
      return 130;
    }
    out(`Wrote ${count(result.mirrored)} mirror entr(ies) in ${count(result.batches)} batch(es).${skipped}\n`);
    return 0;
  } finally {
    await provider.close();
    await embedderWork.close();
    await summaryWork?.close();
  }
}
