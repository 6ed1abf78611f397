// What PGlite's buffer cache (STORE_PGLITE_SHARED_BUFFERS_MB) does to searches over a retrieval corpus: the hub is
// started on the corpus with each cache size in turn (`context-hub start`'s layout, the store in its own process),
// round after round, and each time answers the same questions with any-word full text, semantic and hybrid search in
// turn, over MCP, after a few warm-up questions (untimed) so the process is past its first reads. It reports each
// tool's p50 / p95 per size and round, and the store process's resident memory after the questions.
//
// Usage: node bench/pglite-cache.js --data-dir DIR [--sizes 128,0] [--rounds 2] [--queries 100] [--warm 20] [--json file]
// DIR holds a corpus `node bench/retrieval.js --sizes N --data-dir DIR` loaded; size 0 is the automatic cache (the
// store's default), sized from DIR at start.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname } from "node:path";
import { parseArgs } from "node:util";
import { loadStoreConfig } from "@context-hub/store";
import { sharedBuffersFor } from "@context-hub/store/testing";
import { makeQueries } from "./retrieval-data.js";
import { startRetrievalHub } from "./lib/retrieval-hub.js";
import { quantile, round } from "./lib/stats.js";

const { values } = parseArgs({
  options: {
    "data-dir": { type: "string" },
    sizes: { type: "string", default: "128,0" },
    rounds: { type: "string", default: "2" },
    queries: { type: "string", default: "100" },
    warm: { type: "string", default: "20" },
    json: { type: "string" },
  },
});
const dataDir = values["data-dir"];
if (dataDir === undefined) throw new Error("--data-dir names a corpus loaded by bench/retrieval.js --data-dir");
const sizes = values.sizes.split(",").map(Number);
const warm = Number(values.warm);
const questions = makeQueries(Number(values.queries) + warm, 11);
const tools = {
  "full text (any)": { name: "fts_search_context", args: (query) => ({ query, mode: "any" }) },
  semantic: { name: "semantic_search_context", args: (query) => ({ query }) },
  "hybrid (default)": { name: "hybrid_search_context", args: (query) => ({ query }) },
};

/** Resident memory of this process's child running the store, in MB. */
function storeRssMb() {
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      const status = readFileSync(`/proc/${pid}/status`, "utf8");
      const parent = Number(/PPid:\s+(\d+)/.exec(status)?.[1]);
      if (parent !== process.pid || !readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("store")) continue;
      return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]) / 1024);
    } catch {
      // The process ended meanwhile.
    }
  }
  return null;
}

async function measure(mb) {
  const { client, close } = await startRetrievalHub(dataDir, { STORE_PGLITE_SHARED_BUFFERS_MB: String(mb) });
  const times = Object.fromEntries(Object.keys(tools).map((label) => [label, []]));
  try {
    for (const [index, query] of questions.entries()) {
      for (const [label, tool] of Object.entries(tools)) {
        const started = performance.now();
        const result = await client.callTool({ name: tool.name, arguments: tool.args(query) });
        const ms = performance.now() - started;
        if (result.isError) throw new Error(`${tool.name}: ${result.content[0]?.text}`);
        if (index >= warm) times[label].push(ms);
      }
    }
    return { times, rssMb: storeRssMb() };
  } finally {
    await close();
  }
}

const runs = [];
for (let pass = 1; pass <= Number(values.rounds); pass++) {
  for (const mb of sizes) {
    // The size the store will pick, from its own settings (the cache's ceiling depends on the index build's memory).
    const { database } = loadStoreConfig({ ...process.env, STORE_PGLITE_SHARED_BUFFERS_MB: String(mb) });
    const cacheMb = await sharedBuffersFor(dataDir, database.pgliteSharedBuffers);
    const { times, rssMb } = await measure(mb);
    const summary = Object.fromEntries(
      Object.entries(times).map(([label, samples]) => [
        label,
        { p50: round(quantile(samples, 0.5), 1), p95: round(quantile(samples, 0.95), 1) },
      ]),
    );
    runs.push({ round: pass, setting: mb, cacheMb, storeRssMb: rssMb, tools: summary });
    console.log(
      `round ${pass}, STORE_PGLITE_SHARED_BUFFERS_MB=${mb} (cache ${cacheMb} MB, store RSS ${rssMb} MB): ` +
        Object.entries(summary)
          .map(([label, { p50, p95 }]) => `${label} ${p50} / ${p95}`)
          .join(" | "),
    );
  }
}
const report = {
  dataDir,
  questions: Number(values.queries),
  warm,
  runs,
  host: { cpus: cpus().length, model: cpus()[0]?.model, loadavg: loadavg().map((value) => round(value, 2)) },
};
if (values.json !== undefined) {
  mkdirSync(dirname(values.json), { recursive: true });
  writeFileSync(values.json, JSON.stringify(report, null, 2));
}
