import { once } from "node:events";
import { createReadStream, existsSync } from "node:fs";
import { access } from "node:fs/promises";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { createLogger } from "@context-hub/common";
import {
  exportStore,
  importStore,
  isMemoryDataDir,
  loadStoreConfig,
  openDatabase,
  type SqlDatabase,
  type TransferCounts,
} from "@context-hub/store";
import { count, createProgressBar, type ProgressBar, type ProgressSink } from "./progress-bar.js";
import { readLiveRuntime } from "./runtime-file.js";

export const exportUsage = `Usage: context-hub export [--tenant <t>] [--since <ISO time>] [--data-dir <dir>] > file.jsonl

  Writes the store as JSON Lines on stdout (see docs/transfer.md): entries with all
  their versions, tombstones, grants, images, node summaries, chunks with their
  vectors, API keys (their hashes only), idempotency keys and the audit chains with
  their hashes. Reads one snapshot; changes nothing. Progress goes to stderr.
  --tenant <t>         only this tenant's rows
  --since <ISO time>   only rows written or changed at or after this instant
  --data-dir <dir>     PGlite data directory (default STORE_DATA_DIR); with
                       DATABASE_URL set, that PostgreSQL server is read instead
`;

export const importUsage = `Usage: context-hub import <file> [--data-dir <dir>]

  Restores an export file into the store (empty or not), keeping every id. Checks
  the whole file first (each line, content hashes, audit chains, schema version),
  then writes it in one transaction: rows already stored as they are in the file
  are skipped, so importing a file twice changes nothing; a row stored with the
  same id but other content is a conflict and nothing is imported.
  --data-dir <dir>     PGlite data directory (default STORE_DATA_DIR); with
                       DATABASE_URL set, that PostgreSQL server is written instead
`;

export interface TransferCommandOptions {
  /** Progress and notes (stderr by default). */
  progress?: ProgressSink;
  /** Milliseconds between progress lines when the sink is not a terminal (default 5 s). */
  progressLineMs?: number;
}

const stderrSink = (): ProgressSink => ({
  write: (text: string) => process.stderr.write(text),
  isTTY: process.stderr.isTTY === true,
});

const total = (counts: TransferCounts) => Object.values(counts).reduce((sum, value) => sum + value, 0);
const listCounts = (counts: TransferCounts) =>
  Object.entries(counts)
    .filter(([, value]) => value > 0)
    .map(([kind, value]) => `${count(value)} ${kind}`)
    .join(", ") || "nothing";

/**
 * Opens the configured database for an offline command: PGlite's data
 * directory only when no hub runs on it (the data-directory lock refuses
 * it too, but this names the running hub and what to do).
 */
async function openStoreDatabase(
  env: NodeJS.ProcessEnv,
  dataDir: string | undefined,
  command: "export" | "import",
): Promise<SqlDatabase> {
  const config = loadStoreConfig({
    ...env,
    ...(dataDir === undefined ? {} : { STORE_DATA_DIR: dataDir }),
    STORE_HOST: "127.0.0.1",
    STORE_PORT: "0",
    STORE_OPS_PORT: "-1",
  });
  const { url, dataDir: directory } = config.database;
  if (url === "" && isMemoryDataDir(directory))
    throw new Error("STORE_DATA_DIR is memory://: there is no stored data to work on");
  // An import may create a new store; an export of a directory that does not exist is a mistyped path, not an empty store.
  if (url === "" && command === "export" && !existsSync(directory))
    throw new Error(`there is no store in ${directory}: check --data-dir or STORE_DATA_DIR`);
  if (url === "") {
    const live = readLiveRuntime(directory);
    if (live !== undefined) {
      throw new Error(
        `Context Hub is running on ${directory} (pid ${live.pid}, ${live.url}). Stop it first (Ctrl-C where it runs), then run \`context-hub ${command}\` again.`,
      );
    }
  }
  // Logs go to stderr: stdout carries the export itself.
  const logger = createLogger(command, env.LOG_LEVEL ?? "warn", {
    write: (line: string) => process.stderr.write(line),
  });
  return openDatabase(config.database, logger);
}

function parseSince(raw: string | undefined): Date | undefined {
  if (raw === undefined) return undefined;
  const since = new Date(raw);
  if (!/^\d{4}-\d{2}-\d{2}/.test(raw) || Number.isNaN(since.getTime()))
    throw new Error(`--since must be an ISO 8601 time such as 2026-01-31 or 2026-01-31T12:00:00Z (got "${raw}")`);
  return since;
}

/** `context-hub export …`: writes the file to `output` (stdout); returns the process exit code. */
export async function runExportCommand(
  args: string[],
  env: NodeJS.ProcessEnv,
  output: NodeJS.WritableStream,
  options: TransferCommandOptions = {},
): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      tenant: { type: "string" },
      since: { type: "string" },
      "data-dir": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
  });
  const sink = options.progress ?? stderrSink();
  if (values.help) {
    sink.write(exportUsage);
    return 0;
  }
  if (values.tenant === "") throw new Error("--tenant needs a tenant name");
  const since = parseSince(values.since);
  const db = await openStoreDatabase(env, values["data-dir"], "export");
  try {
    let bar: ProgressBar | undefined;
    let expected = 0;
    const written: TransferCounts = {};
    const counts = await exportStore(
      db,
      { ...(values.tenant === undefined ? {} : { tenant: values.tenant }), ...(since === undefined ? {} : { since }) },
      {
        async write(line) {
          if (!output.write(line)) await once(output, "drain");
        },
        begin(header) {
          expected = total(header.counts);
          bar = createProgressBar(sink, "exported", options.progressLineMs ?? 5_000, "rows");
        },
        progress(kind, rows) {
          written[kind] = rows;
          const done = total(written);
          bar?.update({ done, total: expected, written: done });
        },
      },
    );
    bar?.finish();
    sink.write(`Exported ${count(total(counts))} row(s): ${listCounts(counts)}.\n`);
    return 0;
  } finally {
    await db.close();
  }
}

function lineSource(path: string) {
  return async function* lines(): AsyncIterable<string> {
    const reader = createInterface({
      input: createReadStream(path, { encoding: "utf8" }),
      crlfDelay: Number.POSITIVE_INFINITY,
    });
    yield* reader;
  };
}

/** `context-hub import <file> …`; returns the process exit code. */
export async function runImportCommand(
  args: string[],
  env: NodeJS.ProcessEnv,
  out: (text: string) => void,
  options: TransferCommandOptions = {},
): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { "data-dir": { type: "string" }, help: { type: "boolean", short: "h" } },
    allowPositionals: true,
    strict: true,
  });
  if (values.help) {
    out(importUsage);
    return 0;
  }
  if (positionals.length !== 1) throw new Error(`import takes one file (got ${positionals.length})\n\n${importUsage}`);
  const path = positionals[0]!;
  await access(path).catch(() => {
    throw new Error(`cannot read ${path}: no such file, or not readable`);
  });
  const sink = options.progress ?? stderrSink();
  const db = await openStoreDatabase(env, values["data-dir"], "import");
  try {
    const bars: Partial<Record<"checking" | "importing", ProgressBar>> = {};
    const result = await importStore(db, lineSource(path), {
      onProgress({ phase, done, total: rows }) {
        if (phase === "importing" && bars.checking !== undefined) {
          bars.checking.finish();
          delete bars.checking;
        }
        const bar = (bars[phase] ??= createProgressBar(
          sink,
          phase === "checking" ? "checked" : "imported",
          options.progressLineMs ?? 5_000,
          "rows",
        ));
        bar.update({ done, total: rows, written: done });
      },
    });
    bars.checking?.finish();
    bars.importing?.finish();
    const inserted = total(result.inserted);
    const skipped = total(result.skipped);
    out(
      `Imported ${count(inserted)} row(s)${inserted > 0 ? `: ${listCounts(result.inserted)}` : ""}; ${count(skipped)} already stored as they are were skipped.\n`,
    );
    return 0;
  } finally {
    await db.close();
  }
}
