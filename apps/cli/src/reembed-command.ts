import { parseArgs } from "node:util";
import { createLogger } from "@context-hub/common";
import { createEmbedderTextWork, createEmbeddingProvider, loadEmbedderConfig } from "@context-hub/embedder";
import {
  isMemoryDataDir,
  loadStoreConfig,
  openDatabase,
  planReembedding,
  reembedChunks,
  type EmbeddingSpace,
  type ReembedOptions,
  type ReembedPlan,
  type ReembedResult,
  type SqlDatabase,
} from "@context-hub/store";
import { count, createProgressBar, stderrSink, type ProgressSink } from "./progress-bar.js";
import { readLiveRuntime } from "./runtime-file.js";
import { batchTextBudgetMs } from "./batch-text-budget.js";

export const reembedUsage = `Usage: context-hub reembed [--batch-size <n>] [--dry-run]

  Re-embeds every stored chunk whose vector was made by another embedding model
  (or dimension) than the configured one, after a model change. Run it with the
  server stopped, with the new embedder settings (EMBEDDER_PROVIDER, EMBEDDER_MODEL,
  EMBEDDER_BASE_URL, EMBEDDER_DIMENSION, …) and the store's database settings
  (DATABASE_URL, or STORE_DATA_DIR for PGlite). Chunks keep their spans; only their
  vectors are replaced, a batch per transaction, so an interrupted run can simply
  be run again and continues where it stopped.
  --batch-size <n>  chunks per embedding call and per transaction (default 128)
  --dry-run         count what would be re-embedded and change nothing
`;

const defaultBatchSize = 128;

export interface ReembedCommandOptions {
  /** Progress and notes (stderr by default). */
  progress?: ProgressSink;
  /** Milliseconds between progress lines when the sink is not a terminal (default 5 s). */
  progressLineMs?: number;
  /** Stops after the batch in flight (the command wires SIGINT and SIGTERM to it). */
  signal?: AbortSignal;
}

const spaceName = (space: EmbeddingSpace) => `${space.model} (${space.dimension} dimensions)`;

function describePlan(plan: ReembedPlan): string {
  if (plan.pending === 0)
    return `Every stored chunk (${count(plan.done)}) is already in ${spaceName(plan.target)}; nothing to re-embed.\n`;
  const from = plan.from.map((space) => `  ${count(space.chunks)} chunk(s) in ${spaceName(space)}`).join("\n");
  return `${count(plan.pending)} chunk(s) to re-embed into ${spaceName(plan.target)}${plan.done > 0 ? ` (${count(plan.done)} already there)` : ""}:\n${from}\n`;
}

/** `context-hub reembed …`; returns the process exit code. */
export async function runReembedCommand(
  args: string[],
  env: NodeJS.ProcessEnv,
  out: (text: string) => void,
  options: ReembedCommandOptions = {},
): Promise<number> {
  const parsed = parseReembedArgs(args);
  if (parsed === "help") {
    out(reembedUsage);
    return 0;
  }
  const progressSink = options.progress ?? stderrSink();
  const logger = createLogger("reembed", env.LOG_LEVEL ?? "warn");
  const { storeConfig, embedderConfig } = loadReembedConfigs(env);

  const work = createEmbedderTextWork({
    workers: embedderConfig.textWorkers,
    budgetMs: batchTextBudgetMs(embedderConfig.textBudgetMs),
    cacheDir: embedderConfig.provider === "builtin" ? embedderConfig.cacheDir : undefined,
  });
  const provider = createEmbeddingProvider(embedderConfig, work, logger);
  try {
    await provider.warm();
    const { provider: providerName, model, dimension } = provider.describe();
    const target = { model, dimension };
    // PGlite: the data directory lock refuses a store started without a runtime file, too.
    const db = await openDatabase(storeConfig.database, logger);
    try {
      return await reembedStore(db, out, {
        ...parsed,
        target,
        providerName,
        embed: (texts) => provider.embed({ texts, inputType: "document" }),
        shared: storeConfig.database.url !== "",
        progressSink,
        progressLineMs: options.progressLineMs ?? 5_000,
        signal: options.signal,
      });
    } finally {
      await db.close();
    }
  } finally {
    await provider.close();
    await work.close();
  }
}

/** The command's arguments: "help" for `--help`, else the batch size and whether this is a dry run. */
function parseReembedArgs(args: string[]): "help" | { batchSize: number; dryRun: boolean } {
  const { values } = parseArgs({
    args,
    options: { "batch-size": { type: "string" }, "dry-run": { type: "boolean" }, help: { type: "boolean" } },
    strict: true,
  });
  if (values.help) return "help";
  const rawBatch = values["batch-size"];
  if (rawBatch !== undefined && (!/^\d{1,5}$/.test(rawBatch) || Number(rawBatch) < 1 || Number(rawBatch) > 10_000)) {
    throw new Error(`--batch-size must be a whole number from 1 to 10000 (got "${rawBatch}")`);
  }
  const batchSize = rawBatch === undefined ? defaultBatchSize : Number(rawBatch);
  const dryRun = values["dry-run"] ?? false;
  return { batchSize, dryRun };
}

/**
 * The store's and the embedder's configurations, both read before anything
 * is opened so a bad setting changes nothing; refuses an in-memory store and
 * a PGlite data directory a running Context Hub holds.
 */
function loadReembedConfigs(env: NodeJS.ProcessEnv) {
  const storeConfig = loadStoreConfig({ ...env, STORE_HOST: "127.0.0.1", STORE_PORT: "0", STORE_OPS_PORT: "-1" });
  const embedderConfig = loadEmbedderConfig({ ...env, EMBEDDER_PORT: "0", EMBEDDER_OPS_PORT: "-1" });
  const { url, dataDir } = storeConfig.database;
  if (url === "" && isMemoryDataDir(dataDir))
    throw new Error("STORE_DATA_DIR is memory://: there is nothing stored to re-embed");
  if (url === "") {
    const live = readLiveRuntime(dataDir);
    if (live !== undefined) {
      throw new Error(
        `Context Hub is running on ${dataDir} (pid ${live.pid}, ${live.url}). Stop it first (Ctrl-C where it runs), then run \`context-hub reembed\` again: ` +
          "re-embedding rewrites the stored chunks, and a running server would keep writing chunks with the model it started with.",
      );
    }
  }
  return { storeConfig, embedderConfig };
}

/** How one run re-embeds an open store. */
interface ReembedRun {
  target: EmbeddingSpace;
  providerName: string;
  embed: ReembedOptions["embed"];
  batchSize: number;
  dryRun: boolean;
  /** Whether the database is a PostgreSQL server others may write to meanwhile (not a PGlite directory). */
  shared: boolean;
  progressSink: ProgressSink;
  progressLineMs: number;
  signal: AbortSignal | undefined;
}

/** Plans and (unless a dry run) re-embeds the chunks of `db`, telling `out` how it went; returns the exit code. */
async function reembedStore(db: SqlDatabase, out: (text: string) => void, run: ReembedRun): Promise<number> {
  const { target } = run;
  const plan = await planReembedding(db, target);
  out(describePlan(plan));
  if (run.dryRun) {
    if (plan.pending > 0) out("Nothing was changed (--dry-run).\n");
    return 0;
  }
  if (run.shared)
    run.progressSink.write(
      "Make sure no gateway writes to this database while this runs; chunks written meanwhile with the old model are left for the next run.\n",
    );
  const progress = createProgressBar(run.progressSink, "re-embedded", run.progressLineMs);
  let moved = 0;
  const result = await reembedChunks(db, {
    target,
    provider: run.providerName,
    batchSize: run.batchSize,
    embed: run.embed,
    onBatch: (batch) => {
      moved += batch;
      progress.update({ done: moved, total: plan.pending, written: moved });
    },
    ...(run.signal === undefined ? {} : { signal: run.signal }),
  });
  progress.finish();
  return reportReembedding(db, out, target, result);
}

/** Tells `out` what a run did, and whether chunks written meanwhile are still to do; returns the exit code. */
async function reportReembedding(
  db: SqlDatabase,
  out: (text: string) => void,
  target: EmbeddingSpace,
  result: ReembedResult,
): Promise<number> {
  if (result.interrupted) {
    out(
      `Stopped after re-embedding ${count(result.reembedded)} chunk(s); run \`context-hub reembed\` again to continue.\n`,
    );
    return 130;
  }
  const removed = result.removedSpaces.map(spaceName).join(", ");
  out(
    `Re-embedded ${count(result.reembedded)} chunk(s) into ${spaceName(target)} in ${count(result.batches)} batch(es).${removed === "" ? "" : ` Removed the emptied space(s) ${removed} and their indexes.`}\n`,
  );
  const left = await planReembedding(db, target);
  if (left.pending > 0) {
    out(
      `${count(left.pending)} chunk(s) were written or changed meanwhile and are still in another space; run \`context-hub reembed\` again.\n`,
    );
    return 1;
  }
  return 0;
}
