import { parseArgs } from "node:util";
import { createLogger } from "@context-hub/common";
import {
  createQdrantCollections,
  isMemoryDataDir,
  loadStoreConfig,
  openDatabase,
  reindexQdrant,
  type ReindexProgress,
} from "@context-hub/store";
import { count, createProgressBar, stderrSink, type ProgressSink } from "./progress-bar.js";
import { readLiveRuntime } from "./runtime-file.js";

export const reindexUsage = `Usage: context-hub reindex [--batch-size <n>] [--recreate] [--restart]

  Rebuilds the Qdrant collections from the chunk vectors in PostgreSQL, the source
  of truth, with the store's settings (DATABASE_URL or STORE_DATA_DIR, and
  STORE_VECTOR_BACKEND=qdrant with STORE_QDRANT_URL, STORE_QDRANT_API_KEY,
  STORE_QDRANT_COLLECTION). Every chunk is written again with its entry's current
  payload; running it twice changes nothing. An interrupted run continues where it
  stopped. The store may keep serving meanwhile: writes reach Qdrant through the
  outbox as usual.
  --batch-size <n>  chunks per read and per Qdrant upsert (default 256)
  --recreate        drop each embedding space's collection first (a fresh run only),
                    e.g. to clear points left by a wiped database
  --restart         ignore an interrupted run's position and start from the first chunk
`;

const defaultBatchSize = 256;

/** Where the progress goes: a terminal gets one redrawn bar, anything else a plain line now and then. */

export interface ReindexCommandOptions {
  /** Progress (stderr by default). */
  progress?: ProgressSink;
  /** Milliseconds between progress lines when the sink is not a terminal (default 5 s). */
  progressLineMs?: number;
}

/** `context-hub reindex …`; returns the process exit code. */
export async function runReindexCommand(
  args: string[],
  env: NodeJS.ProcessEnv,
  out: (text: string) => void,
  options: ReindexCommandOptions = {},
): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      "batch-size": { type: "string" },
      recreate: { type: "boolean" },
      restart: { type: "boolean" },
      help: { type: "boolean" },
    },
    strict: true,
  });
  if (values.help) {
    out(reindexUsage);
    return 0;
  }
  const rawBatch = values["batch-size"];
  if (rawBatch !== undefined && (!/^\d{1,5}$/.test(rawBatch) || Number(rawBatch) < 1 || Number(rawBatch) > 10_000)) {
    throw new Error(`--batch-size must be a whole number from 1 to 10000 (got "${rawBatch}")`);
  }
  const batch = rawBatch === undefined ? defaultBatchSize : Number(rawBatch);
  const sink = options.progress ?? stderrSink();
  const logger = createLogger("reindex", env.LOG_LEVEL ?? "warn");

  // Every setting is checked before anything is opened, so a bad one changes nothing.
  const config = loadStoreConfig({ ...env, STORE_HOST: "127.0.0.1", STORE_PORT: "0", STORE_OPS_PORT: "-1" });
  const qdrant = config.vectors.qdrant;
  if (qdrant === undefined) {
    throw new Error(
      "reindex rebuilds the Qdrant collections: set STORE_VECTOR_BACKEND=qdrant and STORE_QDRANT_URL (a pgvector store has nothing to rebuild)",
    );
  }
  const { url, dataDir } = config.database;
  if (url === "" && isMemoryDataDir(dataDir))
    throw new Error("STORE_DATA_DIR is memory://: there is nothing stored to reindex");
  if (url === "") {
    const live = readLiveRuntime(dataDir);
    if (live !== undefined) {
      throw new Error(
        `Context Hub is running on ${dataDir} (pid ${live.pid}, ${live.url}), and PGlite serves one process: stop it first, then run \`context-hub reindex\` again.`,
      );
    }
  }

  const db = await openDatabase(config.database, logger);
  try {
    const collections = createQdrantCollections(qdrant, logger);
    const progress = createProgressBar(sink, "reindexed", options.progressLineMs ?? 5_000);
    const started = performance.now();
    let reached: ReindexProgress | undefined;
    const result = await reindexQdrant(db, collections, {
      batch,
      recreate: values.recreate ?? false,
      restart: values.restart ?? false,
      onProgress: (step) => {
        reached = step;
        progress.update(step);
      },
    }).catch((error: unknown) => {
      if (reached !== undefined) progress.finish();
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(
        `reindexing stopped: ${reason} (Qdrant at ${qdrant.url}). ${count(reached?.done ?? 0)} chunk(s) are written; run \`context-hub reindex\` again to continue where it stopped.`,
        {
          cause: error,
        },
      );
    });
    progress.finish();
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    out(
      `Wrote ${count(result.written)} chunk(s) to Qdrant (${qdrant.url}, collections ${qdrant.collection}_*) in ${seconds} s` +
        `${result.resumed ? `, continuing an interrupted run (${count(result.total - result.written)} were already written)` : ""}.\n`,
    );
    return 0;
  } finally {
    await db.close();
  }
}
