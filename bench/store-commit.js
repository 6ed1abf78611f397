// CPU per new entry of the store's write in the store alone: the entry service (validation, the instruction screen,
// the combined insert, the audit record) over PGlite (or DATABASE_URL's PostgreSQL server), with no gRPC and no generation — 1 KB notes from the retrieval
// corpus's generator with their built-in vectors, 16 commits in flight. `--before` commits come first; then the
// space's HNSW index is built as the store builds it (--index), and ANALYZE runs on the tables named by --statistics
// (none, chunks, all); with --bm25-index the tenant gets its own BM25 index (STORE_FULL_TEXT_INDEX=bm25, built as the
// store builds it); --without-sample-key drops the entries' sample-key index (migration 21), to measure what it costs a
// write; --gin-pending-list gives the GIN indexes back PostgreSQL's pending list (before migration 25), to compare what
// writing straight into their trees costs; the resource-change triggers (migration 28) notify a listener, as in a
// store that serves resource watches, unless --without-change-notify drops them, to measure what they cost a write;
// then `--commits` commits are timed.
//
// Usage: node bench/store-commit.js [--before 400] [--commits 2000] [--index] [--bm25-index] [--statistics none|chunks|all]
//        [--without-sample-key] [--gin-pending-list] [--without-change-notify] [--json file]
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { createLogger } from "@context-hub/common";
import { openDatabase, resourceChangesChannel } from "@context-hub/store";
import {
  createAuditRepository,
  createDenialRecorder,
  createEntryRepository,
  createEntryService,
  createWriteScreen,
  defaultSearchConfig,
  ginIndexes,
  openSearch,
} from "@context-hub/store/testing";
import { embedText, loadWordVectors, toDefaultCacheDir } from "@context-hub/text";
import { builtinDimension, builtinEmbedOptions, builtinModel, sizedNote } from "./retrieval-data.js";

const { values } = parseArgs({
  options: {
    before: { type: "string", default: "400" },
    commits: { type: "string", default: "2000" },
    index: { type: "boolean", default: false },
    "bm25-index": { type: "boolean", default: false },
    "without-sample-key": { type: "boolean", default: false },
    "gin-pending-list": { type: "boolean", default: false },
    "without-change-notify": { type: "boolean", default: false },
    statistics: { type: "string", default: "none" },
    json: { type: "string" },
  },
});
const statisticsOf = { none: [], chunks: ["chunks"], all: ["entries", "chunks", "grants", "node_summaries"] }[
  values.statistics
];
if (statisticsOf === undefined) throw new Error(`--statistics takes none, chunks or all, not ${values.statistics}`);
const before = Number(values.before);
const commits = Number(values.commits);
const inFlight = 16;

const logger = createLogger("store-commit", "silent");
const wordVectors = await loadWordVectors(toDefaultCacheDir(process.env));
const dataDir = mkdtempSync(join(tmpdir(), "context-hub-store-commit-"));
// With DATABASE_URL set, the store's PostgreSQL server instead of PGlite, through a pool as wide as the commits in flight.
const url = process.env.DATABASE_URL ?? "";
const database = await openDatabase({ url, dataDir, poolMax: url === "" ? 1 : inFlight }, logger);
// The write-time screen runs in a worker thread, as in the store (its CPU counts: the worker is in this process).
const screen = createWriteScreen({ workers: 1, budgetMs: 60_000 });
const entries = createEntryService(
  createEntryRepository(database),
  createDenialRecorder(createAuditRepository(database)),
  screen,
);
/** Ends the change listener, when one was attached (a PostgreSQL server's is a connection of its own). */
let stopListening = async () => {};
const principal = { tenant: "local", subject: "local", groups: [], scopes: ["context:read", "context:write"] };

/** Commits notes `from` … `from + count - 1`, 16 at a time, as the gateway would after generation. */
async function commitNotes(from, count) {
  let next = from;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < from + count) {
        const index = next++;
        const text = sizedNote(index, 1024);
        await entries.commit(principal, {
          entry: {
            threadId: `bench-${index % 50}`,
            source: index % 2 ? "agent" : "user",
            text,
            tags: [],
            metadata: {},
            images: [],
          },
          generated: {
            textHash: "",
            chunks: [
              {
                ordinal: 0,
                span: { start: 0, end: text.length },
                vector: embedText(text, wordVectors, builtinEmbedOptions),
              },
            ],
            embeddingModel: builtinModel,
            embeddingDimension: builtinDimension,
            summary: text.slice(0, 200),
            nodeSummaries: [],
          },
        });
      }
    }),
  );
}

try {
  await commitNotes(0, before);
  if (values.index) {
    // As in the store: the build ends with the planner statistics refreshed (search-statistics.ts).
    const search = await openSearch(
      database,
      { ...defaultSearchConfig, vectors: { ...defaultSearchConfig.vectors, buildIndexes: false } },
      logger,
    );
    await search.vectors.buildIndex(builtinModel, builtinDimension);
    await search.close();
  }
  if (values["bm25-index"]) {
    const search = await openSearch(
      database,
      {
        ...defaultSearchConfig,
        vectors: { ...defaultSearchConfig.vectors, buildIndexes: false },
        bm25Indexes: { mode: "bm25", minEntries: 1, checkMs: 0 },
      },
      logger,
    );
    await search.bm25Indexes.maintain();
    await search.close();
  }
  if (values["without-sample-key"]) await database.query("DROP INDEX entries_sample_key_idx");
  if (values["gin-pending-list"])
    for (const index of ginIndexes) await database.query(`ALTER INDEX ${index} SET (fastupdate = on)`);
  let heard = 0;
  if (values["without-change-notify"]) {
    const { rows } = await database.query(
      "SELECT tgname, tgrelid::regclass::text AS relation FROM pg_trigger WHERE tgname LIKE 'resource_changes_%'",
    );
    for (const { tgname, relation } of rows) await database.query(`DROP TRIGGER ${tgname} ON ${relation}`);
  } else
    stopListening = await database.listen(
      resourceChangesChannel,
      () => heard++,
      () => {},
    );
  for (const table of statisticsOf) await database.query(`ANALYZE ${table}`);
  const cpu = process.cpuUsage();
  const started = performance.now();
  await commitNotes(before, commits);
  const used = process.cpuUsage(cpu);
  const result = {
    before,
    commits,
    hnsw_index: values.index,
    bm25_index: values["bm25-index"],
    sample_key_index: !values["without-sample-key"],
    gin_pending_list: values["gin-pending-list"],
    change_notify: !values["without-change-notify"],
    changes_heard: heard,
    statistics: values.statistics,
    cpu_ms_per_commit: Number(((used.user + used.system) / 1000 / commits).toFixed(3)),
    wall_ms_per_commit: Number(((performance.now() - started) / commits).toFixed(3)),
  };
  console.log(
    `${values.index ? "HNSW index (statistics refreshed after its build)" : "no index"}${values["bm25-index"] ? ", the tenant's BM25 index" : ""}${values["without-sample-key"] ? ", no sample-key index" : ""}${values["gin-pending-list"] ? ", GIN pending lists" : ""}${values["without-change-notify"] ? ", no change notifications" : `, change notifications (${heard} heard)`}, ANALYZE run on ${values.statistics}: ${result.cpu_ms_per_commit} ms CPU per commit (${result.wall_ms_per_commit} ms wall, ${commits} commits after ${before})`,
  );
  if (values.json) {
    mkdirSync(dirname(values.json), { recursive: true });
    writeFileSync(values.json, `${JSON.stringify(result, null, 2)}\n`);
  }
} finally {
  await stopListening();
  await screen.close();
  await database.close();
  rmSync(dataDir, { recursive: true, force: true });
}
