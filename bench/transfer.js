// Export and import of a whole store (`context-hub export` / `context-hub import`) on the embedded default (PGlite).
//
// Loads --entries synthetic notes with their chunk vectors (bench/retrieval-data.js) into a PGlite data directory,
// exports it to a JSON Lines file, imports that file into a fresh PGlite data directory (and, with DATABASE_URL set,
// into that PostgreSQL database, which must be empty), then imports it a second time (every row found and skipped).
// Reports each step's time, rows per second, the file's size and the process's peak resident memory, sampled every
// 100 ms (the export and the import stream, so it stays flat as the store grows).
//
// Usage: node bench/transfer.js [--entries 100000] [--json bench/results/transfer.json]
import { createReadStream, createWriteStream, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { once } from "node:events";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { createLogger } from "@context-hub/common";
import { exportStore, importStore, openDatabase } from "@context-hub/store";
import { loadCorpus } from "./retrieval-data.js";

const { values } = parseArgs({ options: { entries: { type: "string", default: "100000" }, json: { type: "string" } } });
const entryCount = Number(values.entries);
const logger = createLogger("bench", "warn", { write: (line) => process.stderr.write(line) });
const log = (message) => process.stderr.write(`${message}\n`);

let peakRss = 0;
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
}, 100);
const mb = (bytes) => Math.round(bytes / 1024 / 1024);

const directory = mkdtempSync(join(tmpdir(), "context-hub-transfer-bench-"));
const file = join(directory, "export.jsonl");
const lines = () =>
  createInterface({ input: createReadStream(file, { encoding: "utf8" }), crlfDelay: Number.POSITIVE_INFINITY });
const total = (counts) => Object.values(counts).reduce((sum, count) => sum + count, 0);

async function timed(label, fn) {
  peakRss = process.memoryUsage().rss;
  const started = performance.now();
  const result = await fn();
  const seconds = (performance.now() - started) / 1000;
  log(`${label}: ${seconds.toFixed(1)} s, peak RSS ${mb(peakRss)} MB`);
  return { seconds, peakRssMb: mb(peakRss), result };
}

async function importInto(options, label) {
  const db = await openDatabase(options, logger);
  try {
    const first = await timed(`${label}: import`, () => importStore(db, lines));
    const again = await timed(`${label}: import again (every row skipped)`, () => importStore(db, lines));
    return { import: first, again };
  } finally {
    await db.close();
  }
}

const report = {
  entries: entryCount,
  cpus: cpus().length,
  loadAverage: loadavg().map((value) => Number(value.toFixed(2))),
};
try {
  const source = await openDatabase({ url: "", dataDir: join(directory, "source"), poolMax: 1 }, logger);
  try {
    log(`loading ${entryCount} entries`);
    const load = await timed("load", () => loadCorpus(source, entryCount, { log }));
    report.loadSeconds = Number(load.seconds.toFixed(1));
    const output = createWriteStream(file);
    const exported = await timed("export", () =>
      exportStore(
        source,
        {},
        {
          async write(line) {
            if (!output.write(line)) await once(output, "drain");
          },
        },
      ),
    );
    output.end();
    await once(output, "finish");
    report.rows = total(exported.result);
    report.counts = exported.result;
    report.fileMb = mb(statSync(file).size);
    report.export = {
      seconds: Number(exported.seconds.toFixed(1)),
      rowsPerSecond: Math.round(report.rows / exported.seconds),
      peakRssMb: exported.peakRssMb,
    };
  } finally {
    await source.close();
  }
  const summarise = ({ import: first, again }) => ({
    seconds: Number(first.seconds.toFixed(1)),
    rowsPerSecond: Math.round(report.rows / first.seconds),
    peakRssMb: first.peakRssMb,
    againSeconds: Number(again.seconds.toFixed(1)),
  });
  report.importPglite = summarise(
    await importInto({ url: "", dataDir: join(directory, "target"), poolMax: 1 }, "PGlite"),
  );
  if (process.env.DATABASE_URL)
    report.importPostgres = summarise(
      await importInto({ url: process.env.DATABASE_URL, dataDir: "", poolMax: 4 }, "PostgreSQL"),
    );
  report.loadAverageAfter = loadavg().map((value) => Number(value.toFixed(2)));
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  if (values.json) {
    mkdirSync(dirname(values.json), { recursive: true });
    writeFileSync(values.json, `${JSON.stringify(report, null, 2)}\n`);
  }
} finally {
  clearInterval(sampler);
  rmSync(directory, { recursive: true, force: true });
}
