import { once } from "node:events";
import { createReadStream, existsSync } from "node:fs";
import { access } from "node:fs/promises";
import { parseArgs } from "node:util";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { storeV1 } from "@context-hub/proto";
import { isMemoryDataDir, loadStoreConfig, type TransferCounts } from "@context-hub/store";
import { count, createProgressBar, stderrSink, type ProgressBar, type ProgressSink } from "./progress-bar.js";
import { withStore } from "./store-connection.js";

export const exportUsage = `Usage: context-hub export [--tenant <t>] [--since <ISO time>] [--data-dir <dir>] > file.jsonl

  Writes the store as JSON Lines on stdout (see docs/transfer.md): entries with all
  their versions, tombstones, grants, images, node summaries, chunks with their
  vectors, API keys (their hashes only), idempotency keys and the audit chains with
  their hashes. Reads one snapshot; changes nothing. Progress goes to stderr.
  --tenant <t>         only this tenant's rows
  --since <ISO time>   only rows written, changed or reviewed at or after this
                       instant
  --data-dir <dir>     PGlite data directory (default STORE_DATA_DIR); with
                       DATABASE_URL set, that PostgreSQL server is read instead
  Works with the hub running (through its store) or stopped.
`;

export const importUsage = `Usage: context-hub import <file> [--data-dir <dir>]

  Restores an export file into the store (empty or not), keeping every id. Checks
  the whole file first (each line, content hashes, audit chains, schema version),
  then writes it in one transaction: rows already stored as they are in the file
  are skipped, so importing a file twice changes nothing; a row stored with the
  same id but other content is a conflict and nothing is imported.
  --data-dir <dir>     PGlite data directory (default STORE_DATA_DIR); with
                       DATABASE_URL set, that PostgreSQL server is written instead
  Works with the hub running (through its store) or stopped.
`;

export interface TransferCommandOptions {
  /** Progress and notes (stderr by default). */
  progress?: ProgressSink;
  /** Milliseconds between progress lines when the sink is not a terminal (default 5 s). */
  progressLineMs?: number;
}

const total = (counts: TransferCounts) => Object.values(counts).reduce((sum, value) => sum + value, 0);
const listCounts = (counts: TransferCounts) =>
  Object.entries(counts)
    .filter(([, value]) => value > 0)
    .map(([kind, value]) => `${count(value)} ${kind}`)
    .join(", ") || "nothing";

/**
 * The environment the command's store runs with (`--data-dir` applied),
 * after refusing what cannot be a store to work on. The work itself goes
 * through `withStore`: the running hub's store on this data directory, or
 * one started in this process for the command.
 */
function storeEnv(
  env: NodeJS.ProcessEnv,
  dataDir: string | undefined,
  command: "export" | "import",
): NodeJS.ProcessEnv {
  const storeEnvironment = { ...env, ...(dataDir === undefined ? {} : { STORE_DATA_DIR: dataDir }) };
  const { url, dataDir: directory } = loadStoreConfig({
    ...storeEnvironment,
    STORE_HOST: "127.0.0.1",
    STORE_PORT: "0",
    STORE_OPS_PORT: "-1",
  }).database;
  if (url === "" && isMemoryDataDir(directory))
    throw new Error("STORE_DATA_DIR is memory://: there is no stored data to work on");
  // An import may create a new store; an export of a directory that does not exist is a mistyped path, not an empty store.
  if (url === "" && command === "export" && !existsSync(directory))
    throw new Error(`there is no store in ${directory}: check --data-dir or STORE_DATA_DIR`);
  return storeEnvironment;
}

const fromWire = (counts: { [kind: string]: bigint }): TransferCounts =>
  Object.fromEntries(Object.entries(counts).map(([kind, rows]) => [kind, Number(rows)]));

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
  const request = { tenant: values.tenant ?? "", ...(since === undefined ? {} : { since: timestampFromDate(since) }) };
  const counts = await withStore(storeEnv(env, values["data-dir"], "export"), async (store) => {
    let bar: ProgressBar | undefined;
    let last: storeV1.ExportResponse | undefined;
    for await (const part of store.transfer.export(request)) {
      if (part.data.length > 0 && !output.write(part.data)) await once(output, "drain");
      bar ??= createProgressBar(sink, "exported", options.progressLineMs ?? 5_000, "rows");
      const done = Number(part.rowsWritten);
      bar.update({ done, total: Number(part.rowsExpected), written: done });
      last = part;
    }
    bar?.finish();
    // The last part carries the counts written; a stream that ended without it was cut short.
    if (last === undefined || Object.keys(last.counts).length === 0)
      throw new Error("the store ended the export before its end; the output is incomplete");
    return fromWire(last.counts);
  });
  sink.write(`Exported ${count(total(counts))} row(s): ${listCounts(counts)}.\n`);
  return 0;
}

/** The file's bytes as the import call sends them, 1 MiB at a time. */
async function* fileParts(path: string): AsyncGenerator<{ data: Uint8Array }> {
  for await (const chunk of createReadStream(path, { highWaterMark: 1024 * 1024 })) yield { data: chunk as Buffer };
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
  const result = await withStore(storeEnv(env, values["data-dir"], "import"), async (store) => {
    const bars: Partial<Record<"checking" | "importing", ProgressBar>> = {};
    let result: storeV1.ImportResult | undefined;
    for await (const { event } of store.transfer.import(fileParts(path))) {
      if (event.case === "result") result = event.value;
      if (event.case !== "progress") continue;
      const phase = event.value.phase === storeV1.ImportPhase.IMPORTING ? "importing" : "checking";
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
      const done = Number(event.value.done);
      bar.update({ done, total: Number(event.value.total), written: done });
    }
    bars.checking?.finish();
    bars.importing?.finish();
    if (result === undefined) throw new Error("the store ended the import without its result");
    return { inserted: fromWire(result.inserted), skipped: fromWire(result.skipped) };
  });
  const inserted = total(result.inserted);
  const skipped = total(result.skipped);
  out(
    `Imported ${count(inserted)} row(s)${inserted > 0 ? `: ${listCounts(result.inserted)}` : ""}; ${count(skipped)} already stored as they are were skipped.\n`,
  );
  return 0;
}
